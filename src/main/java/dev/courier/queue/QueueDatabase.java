package dev.courier.queue;

import dev.courier.platform.DatabaseClock;
import dev.courier.platform.Dialect;
import dev.courier.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The queue's database: connections from {@code jdbc/courier} (enlisted in the caller's JTA transaction), the
 * dialect for the SQL that differs, and the clock every lease, delivery time and expiry is taken from: the
 * database's ({@link DatabaseClock}), so that all servers agree on what "now" is whatever their own clocks say.
 */
@ApplicationScoped
class QueueDatabase {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private SchemaMigration schema;

    @Inject
    private DatabaseClock clock;

    @Resource
    private TransactionSynchronizationRegistry transactions;

    private volatile QueueDialect dialect;

    /** Marks a transaction whose statements already plan on the queue's indexes. */
    private static final Object PLANNED = new Object();

    Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    /**
     * A connection for what reads {@code courier_message} by its indexes (claims, acknowledgements, renewals,
     * releases, the sweeper's, the queues' counts): the first in a transaction has the rest of the transaction plan
     * on the queue's indexes ({@link #planOnIndexes}). Statements before it in the transaction plan as usual.
     */
    Connection planned() throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            planOnIndexes(connection);
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return connection;
    }

    /**
     * Has the rest of the current transaction plan on the queue's indexes ({@link QueueDialect#planOnIndexes}),
     * so that a queue table that only looks small is not scanned whole; once per transaction, nothing without
     * one (the setting would end with the statement).
     */
    void planOnIndexes(Connection connection) throws SQLException {
        if (transactions.getTransactionKey() != null && transactions.getResource(PLANNED) == null) {
            dialect().planOnIndexes(connection);
            transactions.putResource(PLANNED, Boolean.TRUE);
        }
    }

    QueueDialect dialect() {
        QueueDialect current = dialect;
        if (current == null) {
            current = schema.dialect() == Dialect.POSTGRESQL ? new PostgresQueueDialect() : new DerbyQueueDialect();
            dialect = current;
        }
        return current;
    }

    /** The database's time ({@link DatabaseClock#now}). */
    Instant now(Connection connection) throws SQLException {
        return clock.now(connection);
    }

    /** A time the database gave in a statement of the queue's ({@link DatabaseClock#given}). */
    Instant time(Instant database) {
        return clock.given(database);
    }
}
