package dev.courier.web;

import dev.courier.audit.AuditTrail;
import dev.courier.platform.ProblemMapper;
import jakarta.inject.Inject;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The body of the container's own 401 and 403 answers (the error pages of {@code WEB-INF/web.xml}): a problem
 * like every other error, which says what the caller lacks and nothing about what exists at the path. A 401 to a
 * call without credentials over plain HTTP from another host becomes 403 {@code https-required} without the
 * password prompt ({@link ClearTextCredentials}). A 401 to a
 * call that carried credentials is a failed login: the {@link LoginThrottle} counts it, the audit trail records it
 * (until the address is locked out: the lockout is recorded once), and once the address is locked out it is
 * answered 429 instead.
 */
@WebServlet("/errors/*")
public class SecurityProblems extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = Logger.getLogger(SecurityProblems.class.getName());

    @Inject
    private LoginThrottle throttle;

    @Inject
    @ConfigProperty(name = "courier.http.allow-basic-over-http", defaultValue = "false")
    boolean clearTextAllowed;

    @Inject
    private AuditTrail trail;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer given ? given : HttpServletResponse.SC_NOT_FOUND;
        String authorization = request.getHeader("Authorization");
        if (status == HttpServletResponse.SC_UNAUTHORIZED
                && authorization == null
                && !clearTextAllowed
                && ClearTextCredentials.inClearFromAnotherHost(request)) {
            ClearTextCredentials.refuse(response); // the container's challenge would have the password typed in clear
            return;
        }
        if (status == HttpServletResponse.SC_UNAUTHORIZED && authorization != null) {
            Instant now = Instant.now();
            String address = request.getRemoteAddr();
            boolean lockedOut = !throttle.wait(address, now).isZero();
            int failures = throttle.failed(address, now);
            if (!lockedOut) { // during a lockout each failure is not recorded again: the lockout was
                audit(request, authorization, address, failures);
            }
            Duration wait = throttle.wait(address, now);
            if (!wait.isZero()) {
                LoginLockout.tooMany(response, wait);
                return;
            }
        }
        String title;
        String detail;
        switch (status) {
            case 401 -> {
                title = "Unauthorized";
                detail = ProblemMapper.UNAUTHORIZED;
            }
            case 403 -> {
                title = "Forbidden";
                detail = ProblemMapper.FORBIDDEN;
            }
            default -> {
                status = HttpServletResponse.SC_NOT_FOUND;
                title = "Not Found";
                detail = "There is no resource at this path.";
            }
        }
        ProblemMapper.write(response, status, "about:blank", title, detail);
    }

    /** Records a failed login: the name it tried, from where, and the address's failures so far. */
    private void audit(HttpServletRequest request, String authorization, String address, int failures) {
        boolean locks = failures >= throttle.limit();
        Object path = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        try {
            trail.record(
                    triedName(authorization),
                    locks ? "login.locked-out" : "login.failed",
                    request.getMethod() + " " + path + " from " + address,
                    locks ? 429 : HttpServletResponse.SC_UNAUTHORIZED,
                    "failure " + failures + " of " + throttle.limit() + " from " + address + " within the lockout");
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "could not record a failed login in the audit trail", e);
        }
    }

    /** The user name a Basic header tried, printable characters only; a token's holder is not known. */
    static String triedName(String authorization) {
        if (!authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return "(bearer token)";
        }
        try {
            String pair = new String(
                    Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            return (colon < 0 ? pair : pair.substring(0, colon)).replaceAll("\\p{Cntrl}", "?");
        } catch (IllegalArgumentException e) {
            return "(malformed Basic credentials)";
        }
    }
}
