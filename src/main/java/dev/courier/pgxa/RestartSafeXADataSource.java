package dev.courier.pgxa;

import java.sql.SQLException;
import javax.sql.XAConnection;
import org.postgresql.xa.PGXADataSource;

/**
 * PostgreSQL's XA data source with one correction, so that a database restart during two-phase commit leaves no
 * transaction in doubt for ever. When the server ends a session in the second phase (a restart, a failover,
 * {@code pg_terminate_backend}: SQLSTATE class 57P) pgjdbc reports {@code XAER_RMERR}, which tells the transaction
 * manager the branch is finished with, although it is still prepared and holds its locks (pgjdbc issue 4438). The
 * transaction manager then abandons it until an operator resolves it by hand. Through this data source the same
 * failure is reported as {@code XAER_RMFAIL}, "resource manager unavailable", and the transaction manager retries
 * the commit or rollback when the database is back, as the XA specification intends.
 *
 * <p>Loaded by Liberty from the JDBC driver's library ({@code courier-pgxa.jar} beside {@code postgresql.jar}),
 * configured with the same properties as {@link PGXADataSource}.
 */
public class RestartSafeXADataSource extends PGXADataSource {

    private static final long serialVersionUID = 1L;

    @Override
    public XAConnection getXAConnection(String user, String password) throws SQLException {
        return new RestartSafeXAConnection(super.getXAConnection(user, password));
    }
}
