package dev.courier.web;

import dev.courier.platform.ProblemMapper;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses what another web site makes a logged-in operator's browser do. A browser keeps the console's Basic
 * credentials and sends them with any request to this server, including a form another site posts; so a request
 * that changes state ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE} under {@code /api}) and that a
 * browser marks as coming from elsewhere ({@code Sec-Fetch-Site: cross-site} or {@code same-site}, or an
 * {@code Origin} other than this server's) answers 403 ({@code urn:courier:problem:cross-site-request}) and does
 * nothing. Clients that are not browsers send neither header and are not affected. The console's pages may not be
 * framed by another site either ({@code X-Frame-Options}, CSP {@code frame-ancestors}), so no click on them can be
 * borrowed.
 */
@WebFilter(
        urlPatterns = {"/api/*", "/console/*"},
        asyncSupported = true)
public class CrossSiteRequests implements Filter {

    private static final Set<String> CHANGING = Set.of("POST", "PUT", "PATCH", "DELETE");

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse answer = (HttpServletResponse) response;
        if (http.getRequestURI().startsWith("/console/")) {
            answer.setHeader("X-Frame-Options", "DENY");
            answer.setHeader("Content-Security-Policy", "frame-ancestors 'none'");
        } else if (CHANGING.contains(http.getMethod()) && fromElsewhere(http)) {
            ProblemMapper.write(
                    answer,
                    HttpServletResponse.SC_FORBIDDEN,
                    "urn:courier:problem:cross-site-request",
                    "Cross-site request",
                    "A request that changes state is refused when a browser sends it for " + "another site (Origin "
                            + http.getHeader("Origin") + ").");
            return;
        }
        chain.doFilter(request, response);
    }

    private static boolean fromElsewhere(HttpServletRequest http) {
        String site = http.getHeader("Sec-Fetch-Site");
        if (site != null) {
            String lower = site.toLowerCase(Locale.ROOT);
            return lower.equals("cross-site") || lower.equals("same-site");
        }
        String origin = http.getHeader("Origin");
        if (origin == null) {
            return false; // not a browser's cross-origin request
        }
        String host = http.getHeader("Host");
        try {
            URI from = URI.create(origin);
            return host == null
                    || from.getHost() == null
                    || !(from.getHost() + (from.getPort() < 0 ? "" : ":" + from.getPort()))
                            .equalsIgnoreCase(withoutDefaultPort(host, from));
        } catch (IllegalArgumentException e) {
            return true; // "null" or garbage: a sandboxed or privacy-stripped origin is not this server
        }
    }

    /** {@code Host} as the Origin would write it: no port for the scheme's default. */
    private static String withoutDefaultPort(String host, URI origin) {
        String defaultPort = "https".equals(origin.getScheme()) ? ":443" : ":80";
        return host.endsWith(defaultPort) ? host.substring(0, host.length() - defaultPort.length()) : host;
    }
}
