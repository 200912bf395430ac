package dev.courier.web;

import dev.courier.platform.ProblemMapper;
import jakarta.inject.Inject;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * The body of the container's own 401 and 403 answers (the error pages of {@code WEB-INF/web.xml}): a problem
 * like every other error, which says what the caller lacks and nothing about what exists at the path. A 401 to a
 * call that carried credentials is a failed login: the {@link LoginThrottle} counts it, and once the address is
 * locked out it is answered 429 instead.
 */
@WebServlet("/errors/*")
public class SecurityProblems extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Inject
    private LoginThrottle throttle;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer given ? given : HttpServletResponse.SC_NOT_FOUND;
        if (status == HttpServletResponse.SC_UNAUTHORIZED && request.getHeader("Authorization") != null) {
            Instant now = Instant.now();
            throttle.failed(request.getRemoteAddr(), now);
            Duration wait = throttle.wait(request.getRemoteAddr(), now);
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
        response.setStatus(status);
        response.setContentType(ProblemMapper.PROBLEM_JSON);
        response.getWriter().write(ProblemMapper.body(status, "about:blank", title, detail));
    }
}
