package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

    private final Instant t0 = Instant.parse("2026-11-30T12:00:00Z");

    private LoginThrottle throttle(int limit, Duration lockout) {
        LoginThrottle throttle = new LoginThrottle();
        throttle.limit = limit;
        throttle.lockout = lockout;
        return throttle;
    }

    @Test
    void should_lock_an_address_out_once_it_failed_the_limit_within_the_lockout_and_only_that_address() {
        LoginThrottle throttle = throttle(3, Duration.ofSeconds(60));
        throttle.failed("10.0.0.1", t0);
        throttle.failed("10.0.0.1", t0.plusSeconds(10));
        assertEquals(Duration.ZERO, throttle.wait("10.0.0.1", t0.plusSeconds(11)), "two failures: still free");
        throttle.failed("10.0.0.1", t0.plusSeconds(20));
        assertEquals(
                Duration.ofSeconds(39),
                throttle.wait("10.0.0.1", t0.plusSeconds(21)),
                "until the first failure is a minute old");
        assertEquals(Duration.ZERO, throttle.wait("10.0.0.2", t0.plusSeconds(21)), "another address");
        assertEquals(Duration.ZERO, throttle.wait("10.0.0.1", t0.plusSeconds(60)), "the first failure aged out");
    }

    @Test
    void should_keep_a_guesser_that_goes_on_locked_out() {
        LoginThrottle throttle = throttle(3, Duration.ofSeconds(60));
        for (int s = 0; s <= 100; s += 10) {
            throttle.failed("10.0.0.1", t0.plusSeconds(s));
        }
        assertEquals(
                Duration.ofSeconds(40),
                throttle.wait("10.0.0.1", t0.plusSeconds(100)),
                "the oldest of the last three failures (80 s) is a minute old at 140 s");
        assertEquals(Duration.ZERO, throttle.wait("10.0.0.1", t0.plusSeconds(141)));
    }

    @Test
    void should_forget_failures_older_than_the_lockout() {
        LoginThrottle throttle = throttle(2, Duration.ofSeconds(60));
        throttle.failed("10.0.0.1", t0);
        throttle.failed("10.0.0.1", t0.plusSeconds(61));
        assertEquals(Duration.ZERO, throttle.wait("10.0.0.1", t0.plusSeconds(62)), "two failures, a minute apart");
    }
}
