package dev.courier.platform;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a message waits before its next delivery after a failed attempt (lease expired or released):
 * {@code min(max, initial × multiplier^(failures − 1))}, then jittered uniformly into [50 %, 100 %] of that
 * so that messages failing together do not return together.
 */
public record Backoff(Duration initial, double multiplier, Duration max) {

    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));

    /** @throws ProblemException 400 unless 0 ≤ initial ≤ max ≤ 1 day and 1 ≤ multiplier ≤ 100 */
    public Backoff {
        Objects.requireNonNull(initial, "initial is required");
        Objects.requireNonNull(max, "max is required");
        if (initial.isNegative() || max.compareTo(initial) < 0 || max.compareTo(Duration.ofDays(1)) > 0) {
            throw ProblemException.invalid("backoff needs 0 <= initialSeconds <= maxSeconds <= 86400");
        }
        if (!(multiplier >= 1.0 && multiplier <= 100.0)) {
            throw ProblemException.invalid("backoff multiplier must be between 1 and 100");
        }
    }

    /**
     * The wait before the next delivery after {@code failures} failed attempts (1 for the first failure).
     *
     * @param random a uniformly distributed value in [0, 1) choosing the jitter
     */
    public Duration delayAfter(int failures, double random) {
        return Duration.ofMillis(Math.round(ceiling(failures).toMillis() * (0.5 + 0.5 * random)));
    }

    /** The wait before jitter, {@code min(max, initial × multiplier^(failures − 1))}: the longest it can be. */
    public Duration ceiling(int failures) {
        double base = initial.toMillis() * Math.pow(multiplier, Math.max(0, failures - 1));
        return Duration.ofMillis(Math.round(Math.min(base, max.toMillis())));
    }
}
