package dev.courier.queue;

import dev.courier.access.Grants;
import dev.courier.platform.Backoff;
import dev.courier.platform.ProblemException;
import java.time.Duration;
import java.util.Objects;

/**
 * The definition of a queue: its name, the default lease a receiver gets, how many deliveries a message gets
 * before it is dead, the backoff between deliveries after a failure, and who besides the role may send to it
 * and consume from it ({@link Grants}; none: the role decides).
 */
public record QueueSpec(QueueName name, Duration lease, int maxAttempts, Backoff backoff, Grants grants) {

    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    static final Duration MAX_LEASE = Duration.ofHours(12);

    /** @throws ProblemException 400 unless 0 < lease ≤ 12 h and 1 ≤ maxAttempts ≤ 1000 */
    public QueueSpec {
        Objects.requireNonNull(name, "name is required");
        Objects.requireNonNull(lease, "lease is required");
        Objects.requireNonNull(backoff, "backoff is required");
        Objects.requireNonNull(grants, "grants are required (Grants.NONE for none)");
        checkLease(lease);
        if (maxAttempts < 1 || maxAttempts > 1000) {
            throw ProblemException.invalid("maxAttempts must be between 1 and 1000");
        }
    }

    /** A queue without grants: the role decides who sends and consumes. */
    public QueueSpec(QueueName name, Duration lease, int maxAttempts, Backoff backoff) {
        this(name, lease, maxAttempts, backoff, Grants.NONE);
    }

    /** This definition with other grants. */
    public QueueSpec withGrants(Grants other) {
        return new QueueSpec(name, lease, maxAttempts, backoff, other);
    }

    /** A queue with the defaults: 10 s lease, 10 attempts, {@link Backoff#DEFAULT}. */
    public static QueueSpec of(QueueName name) {
        return new QueueSpec(name, DEFAULT_LEASE, DEFAULT_MAX_ATTEMPTS, Backoff.DEFAULT);
    }

    /**
     * The wait before delivery {@code attempt + 1} after delivery {@code attempt} failed: the backoff, jittered by
     * {@code random} (draw it per message, or a batch that fails together returns together); none once the
     * attempts are used up (the message goes to dead), also when the limit was lowered below {@code attempt}.
     */
    Duration redeliveryDelay(int attempt, double random) {
        return attempt >= maxAttempts ? Duration.ZERO : backoff.delayAfter(attempt, random);
    }

    static Duration checkLease(Duration lease) {
        if (lease.isNegative() || lease.isZero() || lease.compareTo(MAX_LEASE) > 0) {
            throw ProblemException.invalid(
                    "a lease must be longer than 0 and at most " + MAX_LEASE.toHours() + " hours");
        }
        return lease;
    }
}
