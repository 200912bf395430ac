package dev.courier.queue;

import dev.courier.platform.ProblemException;
import java.time.Instant;

/**
 * What to select from a queue's messages; every part is optional. {@code deliverFrom}/{@code deliverTo} bound the
 * delivery time (inclusive / exclusive), {@code minAttempts} the deliveries so far.
 */
public record MessageFilter(
        MessageState state, Instant deliverFrom, Instant deliverTo, Integer minAttempts, String key) {

    public MessageFilter {
        if (state == MessageState.DELETED) {
            throw ProblemException.invalid("deleted messages are gone; state must be SCHEDULED, READY, LEASED or DEAD");
        }
        if (minAttempts != null && minAttempts < 0) {
            throw ProblemException.invalid("minAttempts must not be negative");
        }
    }

    public static MessageFilter all() {
        return new MessageFilter(null, null, null, null, null);
    }

    public static MessageFilter in(MessageState state) {
        return new MessageFilter(state, null, null, null, null);
    }
}
