package dev.courier.queue;

import dev.courier.platform.ProblemException;

/**
 * What more than one queue resource reads from a request, read in one place so that the same mistake answers the
 * same problem whichever resource it reaches: a whole-number query parameter (400, parsed here rather than by
 * JAX-RS, which would answer a malformed number with 404), a delay in seconds, a lease token checked against the
 * message in the path (400 when missing, 409 when it names another message), and the 404 of a message the path
 * names but the queue does not hold.
 */
final class QueueParameters {

    /** The upper bound of a delay in a request body: delays have no practical upper limit. */
    static final double MAX_DELAY_SECONDS = 100L * 365 * 24 * 3600;

    private QueueParameters() {}

    static Integer integer(String name, String value, Integer absent) {
        try {
            return value == null ? absent : Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw ProblemException.invalid("'" + name + "' must be a whole number");
        }
    }

    /**
     * The request's lease token, checked to belong to the message in the path; the operation checks that the
     * message belongs to the queue in the path: a token is no licence to act on another queue's message through
     * this queue's URL.
     */
    static String token(Queues queues, String queueName, String id, String token) {
        if (token == null || token.isBlank()) {
            queues.require(QueueName.of(queueName)); // an unknown queue says so first
            throw ProblemException.invalid("'leaseToken' is required");
        }
        if (!LeaseToken.messageId(token).equals(id)) {
            queues.require(QueueName.of(queueName));
            throw StaleLeaseException.unknown();
        }
        return token;
    }

    static ProblemException notFound(String queue, String id) {
        return new ProblemException(404, "Message not found", "queue " + queue + " has no message " + id);
    }
}
