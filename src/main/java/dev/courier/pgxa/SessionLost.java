package dev.courier.pgxa;

import java.sql.SQLException;
import java.util.logging.Logger;
import javax.transaction.xa.XAException;

/**
 * Tells an XA failure caused by the database ending the session (SQLSTATE class 08, connection exception, or
 * 57P, operator intervention: admin or crash shutdown, cannot connect now) from a real resource manager error.
 */
final class SessionLost {

    /** Logged on every correction: an operator sees that a second phase met a restart and will be retried. */
    static final String RETRIED =
            "XA session lost in the second phase; reported as XAER_RMFAIL so that the " + "transaction manager retries";

    private static final Logger LOG = Logger.getLogger(SessionLost.class.getName());

    private SessionLost() {}

    /** {@code e} itself, or, if it is an XAER_RMERR caused by a lost session, an XAER_RMFAIL with {@code e} as cause. */
    static XAException retryable(XAException e) {
        if (e.errorCode != XAException.XAER_RMERR || !causedByLostSession(e)) {
            return e;
        }
        LOG.warning(RETRIED + ": " + e);
        XAException retry = new XAException(XAException.XAER_RMFAIL);
        retry.initCause(e);
        return retry;
    }

    static boolean causedByLostSession(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql
                    && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
                return true;
            }
        }
        return false;
    }
}
