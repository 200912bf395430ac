package dev.courier.queue;

import dev.courier.platform.DatabaseClock;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * One database that holds queues ({@link QueueDatabases}): connections from its datasource (enlisted in the
 * caller's JTA transaction), the dialect for the SQL that differs, and its clock, which every lease, delivery time
 * and expiry of its queues is taken from ({@link DatabaseClock}): the database's, so that all servers, and the SQL
 * API's functions in that database, agree on what "now" is whatever their own clocks say.
 */
final class QueueDatabase {

    private final String name;
    private final DataSource dataSource;
    private final QueueDialect dialect;
    private final DatabaseClock.Readings clock;
    private final TransactionSynchronizationRegistry transactions;

    /** Marks a transaction whose statements on this database already plan on the queue's indexes. */
    private final Object planned = new Object();

    QueueDatabase(
            String name,
            DataSource dataSource,
            QueueDialect dialect,
            DatabaseClock.Readings clock,
            TransactionSynchronizationRegistry transactions) {
        this.name = name;
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.clock = clock;
        this.transactions = transactions;
    }

    /** Its name in configuration ({@code courier.queue.databases}); {@code courier} for Courier's own. */
    String name() {
        return name;
    }

    /** Its datasource, for what works on a database of Courier's schema outside the queue (job turns). */
    DataSource dataSource() {
        return dataSource;
    }

    DatabaseClock.Readings clock() {
        return clock;
    }

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
     * so that a queue table that only looks small is not scanned whole; once per transaction and database, nothing
     * without a transaction (the setting would end with the statement).
     */
    void planOnIndexes(Connection connection) throws SQLException {
        if (transactions.getTransactionKey() != null && transactions.getResource(planned) == null) {
            dialect.planOnIndexes(connection);
            transactions.putResource(planned, Boolean.TRUE);
        }
    }

    QueueDialect dialect() {
        return dialect;
    }

    /** The database's time ({@link DatabaseClock#now}). */
    Instant now(Connection connection) throws SQLException {
        return clock.now(connection);
    }

    /** A time the database gave in a statement of the queue's ({@link DatabaseClock#given}). */
    Instant time(Instant database) {
        return clock.given(database);
    }

    @Override
    public String toString() {
        return name;
    }
}
