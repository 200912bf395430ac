package dev.courier.queue;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The life of a message, and the only moves it can make. Stored rows are live ({@code READY}) or
 * {@code DEAD}; whether a live message is {@code SCHEDULED}, {@code READY} or {@code LEASED} follows from its
 * delivery time and lease, so time alone moves it between those without a write.
 */
public enum MessageState {
    /** Live, deliverable later (scheduled, or waiting out the backoff after a failed attempt). */
    SCHEDULED,
    /** Live and deliverable now. */
    READY,
    /** Handed to a receiver whose lease has not expired. */
    LEASED,
    /** Out of attempts (or moved by hand): kept with its history until replayed or purged. */
    DEAD,
    /** Acknowledged, or purged from dead: the row is gone. */
    DELETED;

    private static final Map<MessageState, Set<MessageState>> MOVES = Map.of(
            SCHEDULED, EnumSet.of(READY),
            READY, EnumSet.of(LEASED, DEAD),
            LEASED, EnumSet.of(DELETED, READY, SCHEDULED, LEASED, DEAD),
            DEAD, EnumSet.of(READY, SCHEDULED, DELETED),
            DELETED, EnumSet.noneOf(MessageState.class));

    public boolean canMoveTo(MessageState next) {
        return MOVES.get(this).contains(next);
    }

    /** @throws IllegalStateException when the move from this state to {@code next} is not allowed */
    void requireMoveTo(MessageState next) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException("a message cannot move from " + this + " to " + next);
        }
    }

    /** The state of a stored row at {@code now}. */
    static MessageState observe(String stored, Instant deliverAt, Instant leaseExpiresAt, Instant now) {
        if ("DEAD".equals(stored)) {
            return DEAD;
        }
        if (leaseExpiresAt != null && leaseExpiresAt.isAfter(now)) {
            return LEASED;
        }
        return deliverAt.isAfter(now) ? SCHEDULED : READY;
    }
}
