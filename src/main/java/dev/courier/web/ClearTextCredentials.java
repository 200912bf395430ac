package dev.courier.web;

import dev.courier.platform.ProblemMapper;
import jakarta.inject.Inject;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses credentials sent in clear text from another host: a call to {@code /api} or {@code /console} with a
 * password (Basic) or a bearer token over plain HTTP from anywhere but this machine answers 403 (problem type
 * {@code urn:courier:problem:https-required}), so that no client comes to depend on it; a token read on the wire is
 * as good as a password until it expires. A call without credentials gets the same answer instead of the
 * container's password prompt ({@link SecurityProblems}), so that nobody is asked to type a password in clear. Over HTTPS, or from this machine, both are accepted. Set
 * {@code courier.http.allow-basic-over-http} to allow them anyway, e.g. behind a proxy that terminates TLS.
 */
// asyncSupported: the receive endpoints suspend their requests (long polls, event streams).
@WebFilter(
        urlPatterns = {"/api/*", "/console/*"},
        asyncSupported = true)
public class ClearTextCredentials implements Filter {

    @Inject
    @ConfigProperty(name = "courier.http.allow-basic-over-http", defaultValue = "false")
    boolean allowed;

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        String authorization = http.getHeader("Authorization");
        if (!allowed
                && authorization != null
                && isCredential(authorization.toLowerCase(Locale.ROOT))
                && inClearFromAnotherHost(http)) {
            refuse((HttpServletResponse) response);
            return;
        }
        chain.doFilter(request, response);
    }

    /** Plain HTTP from anywhere but this machine. */
    static boolean inClearFromAnotherHost(HttpServletRequest request) throws IOException {
        return !request.isSecure()
                && !InetAddress.getByName(request.getRemoteAddr()).isLoopbackAddress();
    }

    /** Answers 403 {@code https-required}, with no password prompt: what a call in clear from another host gets. */
    static void refuse(HttpServletResponse response) throws IOException {
        response.setHeader("WWW-Authenticate", null); // no challenge: the password must not be typed in clear
        ProblemMapper.write(
                response,
                HttpServletResponse.SC_FORBIDDEN,
                "urn:courier:problem:https-required",
                "HTTPS required",
                "A password or token sent over plain HTTP from another host is refused, and none is asked for: "
                        + "call over HTTPS.");
    }

    private static boolean isCredential(String authorization) {
        return authorization.startsWith("basic ") || authorization.startsWith("bearer ");
    }
}
