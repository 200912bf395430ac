package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import java.util.Objects;

/**
 * One subscriber's report on one message, as a batch carries it: consumed, or failed with a reason.
 *
 * @param reason required when {@code consumed} is false, ignored otherwise
 */
public record Report(String messageId, String subscriber, boolean consumed, String reason) {

    public Report {
        Objects.requireNonNull(messageId, "messageId is required");
        Objects.requireNonNull(subscriber, "subscriber is required");
    }

    /** What became of one report of a batch: the message's outcome, or the problem that refused it. */
    public record Result(Report report, Outcome outcome, ProblemException problem) {}
}
