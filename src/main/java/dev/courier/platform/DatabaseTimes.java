package dev.courier.platform;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The database's times as this server gives them out, never going back by a small step. A server's "now" comes
 * from two places (the database's clock read with a queue's definition, and an estimate between readings of it),
 * and an estimate may run up to half a query's round trip ahead of the next reading: without this, a message sent
 * at one could be not yet due at the next, and a receive right after the send would find nothing. A step back of
 * more than {@link #SMOOTHED} is the database's clock being set back, and is followed.
 */
final class DatabaseTimes {

    /** The largest step back held at the latest time given out instead of followed. */
    static final Duration SMOOTHED = Duration.ofSeconds(1);

    private final AtomicReference<Instant> latest = new AtomicReference<>(Instant.MIN);

    /** {@code database}, or the latest time given out when {@code database} is only slightly before it. */
    Instant next(Instant database) {
        return latest.accumulateAndGet(
                database, (last, next) -> next.isBefore(last) && !next.isBefore(last.minus(SMOOTHED)) ? last : next);
    }
}
