package dev.courier.queue.jdbc;

import java.time.Duration;

/**
 * A queue's settings for {@link CourierQueue#define}: how long a lease lasts when the receiver names none, how many
 * deliveries a message gets before it is dead, and the backoff before each redelivery ({@code backoffInitial} ×
 * {@code backoffMultiplier}^(attempt − 1), at most {@code backoffMax}, jittered). The database checks them (a lease
 * over 0 up to 12 h, 1 to 1 000 attempts, 0 ≤ initial ≤ max ≤ 1 day, multiplier 1 to 100).
 */
public record QueueDefinition(
        Duration lease, int maxAttempts, Duration backoffInitial, double backoffMultiplier, Duration backoffMax) {

    /** Courier's defaults: a 10 s lease, 10 attempts, backoff from 1 s doubling up to 5 minutes. */
    public static final QueueDefinition DEFAULTS =
            new QueueDefinition(Duration.ofSeconds(10), 10, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));

    public QueueDefinition withLease(Duration lease) {
        return new QueueDefinition(lease, maxAttempts, backoffInitial, backoffMultiplier, backoffMax);
    }

    public QueueDefinition withMaxAttempts(int maxAttempts) {
        return new QueueDefinition(lease, maxAttempts, backoffInitial, backoffMultiplier, backoffMax);
    }

    public QueueDefinition withBackoff(Duration initial, double multiplier, Duration max) {
        return new QueueDefinition(lease, maxAttempts, initial, multiplier, max);
    }
}
