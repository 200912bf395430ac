package dev.courier.pgxa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.sql.SQLException;
import javax.transaction.xa.XAException;
import org.junit.jupiter.api.Test;

class SessionLostTest {

    @Test
    void a_session_ended_by_the_server_is_a_resource_manager_to_retry() {
        for (String state : new String[] {"57P01", "57P02", "57P03", "08006"}) {
            XAException driver = rmerr(new SQLException("terminating connection due to administrator command", state));
            XAException reported = SessionLost.retryable(driver);
            assertEquals(XAException.XAER_RMFAIL, reported.errorCode, state);
            assertSame(driver, reported.getCause());
        }
    }

    @Test
    void other_failures_are_reported_as_the_driver_reported_them() {
        XAException constraint = rmerr(new SQLException("duplicate key", "23505"));
        assertSame(constraint, SessionLost.retryable(constraint));
        XAException noCause = new XAException(XAException.XAER_RMERR);
        assertSame(noCause, SessionLost.retryable(noCause));
        XAException unknown = new XAException(XAException.XAER_NOTA);
        unknown.initCause(new SQLException("gone", "57P01"));
        assertSame(unknown, SessionLost.retryable(unknown), "only XAER_RMERR is corrected");
    }

    private static XAException rmerr(SQLException cause) {
        XAException e = new XAException("Error committing prepared transaction");
        e.errorCode = XAException.XAER_RMERR;
        e.initCause(cause);
        return e;
    }
}
