package dev.courier.platform;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The database's clock: every time Courier stores or compares with a stored time (a queue's leases and delivery
 * times, a reliable message's check-back and report deadlines, job turns, retention) is read here, so that all
 * servers of an installation agree on "now" whatever their own clocks say. On PostgreSQL the database's clock is
 * read at most every {@code courier.clock.refresh} (1 s) and between readings the time is that reading plus the
 * time elapsed on this server's monotonic clock; a reading stands for the middle of its query's round trip, and
 * one whose round trip exceeded 10 ms is not used while an earlier one is at hand. Embedded Derby lives in the
 * server's JVM, so there the server's clock is the database's. Times never go back by a small step
 * ({@link DatabaseTimes}). Tests move it with {@link TimeShift}.
 *
 * <p>A {@link Clock}, so code that only needs "now" reads {@link #instant()}; code that holds a connection passes
 * it to {@link #now(Connection)} so a due reading costs no second connection. When the database cannot be read
 * after a first reading, the estimate from the last reading is given (the caller's own statements fail soon
 * enough if the database is down).
 */
@ApplicationScoped
@Typed(DatabaseClock.class)
public class DatabaseClock extends Clock {

    /** A reading of the database's clock, and this server's {@link System#nanoTime} at that moment. */
    private record Reading(Instant database, long nanos) {}

    /** A reading whose round trip took longer than this is not used while an earlier one is at hand. */
    private static final long MAX_ROUND_TRIP_NANOS = 10_000_000;

    private static final String SELECT_CLOCK = "SELECT clock_timestamp()";

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private SchemaMigration schema;

    @Inject
    private Clock server;

    @Inject
    private TimeShift shift;

    @Inject
    @ConfigProperty(name = "courier.clock.refresh", defaultValue = "PT1S")
    Duration refresh;

    private volatile Reading reading;
    private volatile long triedAt;
    private final DatabaseTimes given = new DatabaseTimes();

    /** The database's time now, reading its clock through {@code connection} when the last reading is old. */
    public Instant now(Connection connection) throws SQLException {
        if (!readsDatabase()) {
            return server.instant();
        }
        long start = System.nanoTime();
        Reading known = reading;
        if (known != null && start - triedAt <= refresh.toNanos()) {
            return given(known.database().plusNanos(start - known.nanos()));
        }
        triedAt = start;
        try (PreparedStatement query = connection.prepareStatement(SELECT_CLOCK);
                ResultSet rows = query.executeQuery()) {
            rows.next();
            Instant database = Columns.instant(rows, 1);
            long roundTrip = System.nanoTime() - start;
            if (known == null || roundTrip <= MAX_ROUND_TRIP_NANOS) {
                reading = new Reading(database, start + roundTrip / 2);
            }
            return given(database);
        }
    }

    /**
     * A time the database gave in a statement of the caller's ({@code null} where the server's clock is the
     * database's), as this clock gives times out: never a little earlier than one given before, shifted for tests.
     */
    public Instant given(Instant database) {
        return database == null ? server.instant() : given.next(database).plus(shift.ahead());
    }

    /** The database's time now, on a connection of its own when a reading is due. */
    @Override
    public Instant instant() {
        if (!readsDatabase()) {
            return server.instant();
        }
        Reading known = reading;
        if (known != null && System.nanoTime() - triedAt <= refresh.toNanos()) {
            return given(known.database().plusNanos(System.nanoTime() - known.nanos()));
        }
        try (Connection connection = dataSource.getConnection()) {
            return now(connection);
        } catch (SQLException | RuntimeException e) {
            if (known == null) {
                throw new IllegalStateException("reading the database's clock failed", e);
            }
            return given(known.database().plusNanos(System.nanoTime() - known.nanos()));
        }
    }

    private boolean readsDatabase() {
        return schema.dialect() == Dialect.POSTGRESQL;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("Courier keeps time in UTC");
    }
}
