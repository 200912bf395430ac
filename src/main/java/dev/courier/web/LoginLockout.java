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
import java.time.Duration;
import java.time.Instant;

/**
 * Answers 429 to a call with credentials from an address the {@link LoginThrottle} has locked out, even when the
 * credentials are right, on {@code /api} and on {@code /console} alike: a guesser learns nothing while locked out.
 * (Wrong ones are answered the same way by {@link SecurityProblems}, which counts them.) The address is the
 * caller's, or the client's that a trusted proxy names ({@code courier.http.trusted-proxies}): behind a proxy,
 * one client's failures do not lock out the others. The time is the wall clock's.
 */
// asyncSupported: the receive endpoints suspend their requests (long polls, event streams).
@WebFilter(
        urlPatterns = {"/api/*", "/console/*"},
        asyncSupported = true)
public class LoginLockout implements Filter {

    @Inject
    private LoginThrottle throttle;

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (http.getHeader("Authorization") != null) {
            Duration wait = throttle.wait(http.getRemoteAddr(), Instant.now());
            if (!wait.isZero()) {
                tooMany((HttpServletResponse) response, wait);
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /** Writes the 429 problem, with the seconds to wait in {@code Retry-After}. */
    static void tooMany(HttpServletResponse response, Duration wait) throws IOException {
        response.setHeader("Retry-After", Long.toString(Math.max(1, wait.toSeconds() + 1)));
        ProblemMapper.write(
                response,
                429,
                "urn:courier:problem:too-many-failed-logins",
                "Too many failed logins",
                "Too many failed logins from this address: try again later.");
    }
}
