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

    private volatile QueueDialect dialect;

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

    /** The database's time, for an operation that reads no queue first (those get it with the queue). */
    Instant now(Connection connection) throws SQLException {
        String select = dialect().selectClock();
        if (select == null) {
            return clock.instant();
        }
        try (PreparedStatement query = connection.prepareStatement(select);
                ResultSet rows = query.executeQuery()) {
            rows.next();
            return time(instant(rows, 1));
        }
    }

    /** A time the database gave ({@code null} where the server's clock is the database's), shifted for tests. */
    Instant time(Instant database) {
        return database == null ? clock.instant() : database.plus(shift.ahead());
    }
}
