package dev.courier.queue;

/**
 * The message of the lease token no longer exists: it was already acknowledged (or purged). HTTP 410. A retried
 * acknowledgement ends here, and rolls back the caller's transaction with it.
 */
public class MessageGoneException extends LeaseException {

    private static final long serialVersionUID = 1L;

    MessageGoneException(String messageId) {
        super(410, "Message gone", "message " + messageId + " no longer exists: it was already acknowledged");
    }
}
