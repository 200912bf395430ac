package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import java.util.Objects;

/**
 * A producer's word on one message, as a batch of settles carries it: its local transaction committed (a confirm)
 * or rolled back (a cancel).
 */
public record Settle(String messageId, boolean committed) {

    public Settle {
        Objects.requireNonNull(messageId, "messageId is required");
    }

    /** What became of one settle of a batch: the message's outcome, or the problem that refused it. */
    public record Result(Settle settle, Outcome outcome, ProblemException problem) {}
}
