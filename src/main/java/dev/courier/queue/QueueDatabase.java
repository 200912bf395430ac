package dev.courier.queue;

import static dev.courier.platform.Columns.instant;

import dev.courier.platform.Dialect;
import dev.courier.platform.SchemaMigration;
import dev.courier.platform.TimeShift;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The queue's database: connections from {@code jdbc/courier} (enlisted in the caller's JTA transaction), the
 * dialect for the SQL that differs, and the clock every lease, delivery time and expiry is taken from — the
 * database's, so that all servers agree on what "now" is whatever their own clocks say (embedded Derby lives in
 * the server's JVM, so there the server's clock is the database's). Tests move it with {@link TimeShift}.
 */
@ApplicationScoped
class QueueDatabase {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private SchemaMigration schema;

    @Inject
    private Clock clock;

    @Inject
    private TimeShift shift;

    @Inject
    private QueueSettings settings;

    @Resource
    private TransactionSynchronizationRegistry transactions;

    private volatile QueueDialect dialect;

    /** Marks a transaction whose statements already plan on the queue's indexes. */
    private static final Object PLANNED = new Object();

    /** A reading of the database's clock, and this server's {@link System#nanoTime} at that moment. */
    private record Reading(Instant database, long nanos) {}

    /** A reading whose round trip took longer than this is not used while an earlier one is at hand. */
    private static final long MAX_ROUND_TRIP_NANOS = 10_000_000;

    private volatile Reading reading;
    private volatile long triedAt;
    private final DatabaseTimes given = new DatabaseTimes();

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

    /**
     * The database's time. A PostgreSQL server is not asked on every operation: its clock is read at most every
     * {@code courier.queue.clock-refresh} (1 s), and between readings the time is that reading plus the time
     * elapsed on this server's monotonic clock. The database read its clock somewhere within the query's round
     * trip, so a reading stands for the middle of it; readings whose round trip exceeded 10 ms are not used while
     * an earlier one is at hand. Servers therefore agree on the time to within a few milliseconds whatever their
     * wall clocks say (one 30 s ahead in {@code QueueServersIT}); a wall clock set back or forward changes
     * nothing.
     */
    Instant now(Connection connection) throws SQLException {
        String select = dialect().selectClock();
        if (select == null) {
            return clock.instant();
        }
        long start = System.nanoTime();
        Reading known = reading;
        if (known != null && start - triedAt <= settings.clockRefresh.toNanos()) {
            return time(known.database().plusNanos(start - known.nanos()));
        }
        triedAt = start;
        try (PreparedStatement query = connection.prepareStatement(select);
                ResultSet rows = query.executeQuery()) {
            rows.next();
            Instant database = instant(rows, 1);
            long roundTrip = System.nanoTime() - start;
            if (known == null || roundTrip <= MAX_ROUND_TRIP_NANOS) {
                reading = new Reading(database, start + roundTrip / 2);
            }
            return time(database);
        }
    }

    /**
     * The database's "now" as it gave it or as estimated ({@code null} where the server's clock is the database's),
     * never a little earlier than one given out before ({@link DatabaseTimes}), shifted for tests.
     */
    Instant time(Instant database) {
        return database == null ? clock.instant() : given.next(database).plus(shift.ahead());
    }
}
