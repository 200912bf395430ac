package dev.courier.web;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Slows down password guessing: once {@code courier.http.login-failures} (10) logins from one address failed
 * within {@code courier.http.login-lockout} (1 minute), that address gets 429 for any call with credentials,
 * right or wrong, until fewer of its failures are that recent; a failure during the lockout counts too, so a
 * guesser stays locked out. Counted per server, in memory, for at most 10 000 addresses (the longest idle are
 * forgotten first).
 */
@ApplicationScoped
public class LoginThrottle {

    private static final int MAX_ADDRESSES = 10_000;

    private final Map<String, Deque<Instant>> failures = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<Instant>> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };

    // Read without the lock on every call with credentials: while no address has failed lately (the usual
    // case) calls do not contend for the lock.
    private volatile boolean anyFailures;

    @Inject
    @ConfigProperty(name = "courier.http.login-failures", defaultValue = "10")
    int limit;

    @Inject
    @ConfigProperty(name = "courier.http.login-lockout", defaultValue = "PT1M")
    Duration lockout;

    /**
     * Counts a failed login from {@code address} at {@code now}.
     *
     * @return its failures within the lockout so far, this one included (at most the limit)
     */
    public synchronized int failed(String address, Instant now) {
        Deque<Instant> recent = failures.computeIfAbsent(address, a -> new ArrayDeque<>());
        recent.addLast(now);
        anyFailures = true;
        forgetBefore(recent, now.minus(lockout));
        while (recent.size() > limit) {
            recent.removeFirst();
        }
        return recent.size();
    }

    /** How many failures within the lockout lock an address out. */
    public int limit() {
        return limit;
    }

    /** How long {@code address} must wait before it may log in again; zero when it may now. */
    public Duration wait(String address, Instant now) {
        return anyFailures ? waitLocked(address, now) : Duration.ZERO;
    }

    private synchronized Duration waitLocked(String address, Instant now) {
        Deque<Instant> recent = failures.get(address);
        if (recent == null) {
            return Duration.ZERO;
        }
        forgetBefore(recent, now.minus(lockout));
        if (recent.isEmpty()) {
            failures.remove(address);
            anyFailures = !failures.isEmpty();
            return Duration.ZERO;
        }
        return recent.size() >= limit ? Duration.between(now, recent.getFirst().plus(lockout)) : Duration.ZERO;
    }

    private static void forgetBefore(Deque<Instant> recent, Instant cutoff) {
        while (!recent.isEmpty() && !recent.getFirst().isAfter(cutoff)) {
            recent.removeFirst();
        }
    }
}
