package dev.courier.queue;

/**
 * The lease token is not the message's current one: the lease expired and another receiver leased the message,
 * the message was released or moved to dead, or the token was never issued. HTTP 409. Rolls back the caller's
 * transaction.
 */
public class StaleLeaseException extends LeaseException {

    private static final long serialVersionUID = 1L;

    private StaleLeaseException(String detail) {
        super(409, "Stale lease token", detail);
    }

    static StaleLeaseException of(String messageId) {
        return new StaleLeaseException("the lease token for message " + messageId + " is no longer current: "
                + "its lease passed to another receiver, or the message was released or moved to dead");
    }

    static StaleLeaseException unknown() {
        return new StaleLeaseException("the lease token was not issued by this queue");
    }
}
