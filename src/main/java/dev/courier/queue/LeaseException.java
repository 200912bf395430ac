package dev.courier.queue;

import dev.courier.platform.ProblemException;
import jakarta.ejb.ApplicationException;

/**
 * An operation fenced by a lease token found that the lease is no longer the caller's. Like every
 * {@link ProblemException} it is an application exception with {@code rollback = true} (restated here because
 * this rollback is the guarantee): it reaches the caller as itself and the caller's whole JTA
 * transaction is marked for rollback, so business writes made together with the ack are not committed. This
 * is what turns at-least-once delivery into exactly-once processing: a transaction retried after an unknown
 * commit outcome fails here instead of applying its effect twice.
 */
@ApplicationException(rollback = true, inherited = true)
public abstract class LeaseException extends ProblemException {

    private static final long serialVersionUID = 1L;

    LeaseException(int status, String title, String detail) {
        super(status, title, detail);
    }
}
