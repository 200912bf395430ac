package dev.courier.queue;

import static dev.courier.platform.Columns.instant;

import dev.courier.platform.Dialect;
import dev.courier.platform.SchemaMigration;
import dev.courier.platform.TimeShift;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
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

    private volatile QueueDialect dialect;
    /** The database's clock minus this server's, measured at {@link #measuredAt} (System.nanoTime; 0 = never). */
    private volatile Duration offset = Duration.ZERO;
    private volatile long measuredAt;

    Connection connection() throws SQLException {
        return dataSource.getConnection();
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
     * The database's time. A PostgreSQL server is not asked on every operation: the gap between its clock and
     * this server's is measured at most every {@code courier.queue.clock-refresh} (1 s) and added to this
     * server's clock, so servers agree to within a query's round trip and the drift of a second.
     */
    Instant now(Connection connection) throws SQLException {
        String select = dialect().selectClock();
        if (select == null) {
            return clock.instant();
        }
        long measured = measuredAt;
        if (measured == 0 || System.nanoTime() - measured > settings.clockRefresh.toNanos()) {
            Instant sent = ownTime();
            try (PreparedStatement query = connection.prepareStatement(select);
                    ResultSet rows = query.executeQuery()) {
                rows.next();
                Instant database = instant(rows, 1);
                Instant received = ownTime();
                // the database read its clock somewhere in the round trip: take the middle
                offset = Duration.between(sent.plus(Duration.between(sent, received).dividedBy(2)), database);
                measuredAt = System.nanoTime();
                return time(database);
            }
        }
        return time(ownTime().plus(offset));
    }

    /** This server's clock (skewed or not), without the tests' shift: what the database's is measured against. */
    private Instant ownTime() {
        return clock.instant().minus(shift.ahead());
    }

    /** A time the database gave ({@code null} where the server's clock is the database's), shifted for tests. */
    Instant time(Instant database) {
        return database == null ? clock.instant() : database.plus(shift.ahead());
    }
}
