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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
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

    /** A reading older than this is replaced by the next, however slow its round trip. */
    private static final long MAX_READING_AGE_NANOS = 60_000_000_000L;

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

    /** {@code jdbc/courier}'s readings; a queue database has its own ({@link #of}). */
    private final Readings readings = new Readings(() -> dataSource);

    /** The database's time now, reading its clock through {@code connection} when the last reading is old. */
    public Instant now(Connection connection) throws SQLException {
        return readings.now(connection);
    }

    /**
     * A time the database gave in a statement of the caller's ({@code null} where the server's clock is the
     * database's), as this clock gives times out: never a little earlier than one given before, shifted for tests.
     */
    public Instant given(Instant database) {
        return readings.given(database);
    }

    /**
     * The database's time now, on a connection of its own when a reading is due. One thread at a time reads; the
     * others, and every call while the database cannot be read, take the estimate from the last reading.
     */
    @Override
    public Instant instant() {
        return readings.instant();
    }

    /** {@code jdbc/courier}'s clock as {@link Readings}. */
    public Readings readings() {
        return readings;
    }

    /**
     * The clock of another database, {@code other} (a queue database of Courier's: its times are its own, which
     * the SQL API's functions there use too), read and estimated as this one is.
     */
    public Readings of(DataSource other) {
        return new Readings(() -> other);
    }

    /** One database's clock: its last reading and the estimate from it. */
    public final class Readings {

        private final Supplier<DataSource> source;
        private volatile Reading reading;
        /** {@link System#nanoTime} of the last try to read the database's clock. */
        private final AtomicLong triedAt = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

        private final DatabaseTimes given = new DatabaseTimes();

        private Readings(Supplier<DataSource> source) {
            this.source = source;
        }

        /** The database's time now, reading its clock through {@code connection} when the last reading is old. */
        public Instant now(Connection connection) throws SQLException {
            if (!readsDatabase()) {
                return server.instant();
            }
            long start = System.nanoTime();
            Reading known = reading;
            if (known != null && !claimRefresh(start)) {
                return estimate(known, start);
            }
            return read(connection, start, known);
        }

        private Instant read(Connection connection, long start, Reading known) throws SQLException {
            try (PreparedStatement query = connection.prepareStatement(SELECT_CLOCK);
                    ResultSet rows = query.executeQuery()) {
                rows.next();
                Instant database = Columns.instant(rows, 1);
                long roundTrip = System.nanoTime() - start;
                // A slow round trip says little about when the database read its clock; an old reading, kept while
                // every round trip is slow (a distant database), drifts with this server's monotonic clock.
                if (known == null
                        || roundTrip <= MAX_ROUND_TRIP_NANOS
                        || start - known.nanos() > MAX_READING_AGE_NANOS) {
                    reading = new Reading(database, start + roundTrip / 2);
                }
                return given(database);
            }
        }

        /** {@link DatabaseClock#given}, for this database. */
        public Instant given(Instant database) {
            return database == null ? server.instant() : given.next(database).plus(shift.ahead());
        }

        /** {@link DatabaseClock#instant}, for this database. */
        public Instant instant() {
            if (!readsDatabase()) {
                return server.instant();
            }
            long start = System.nanoTime();
            Reading known = reading;
            if (known != null && !claimRefresh(start)) {
                return estimate(known, start);
            }
            try (Connection connection = source.get().getConnection()) {
                return read(connection, start, known);
            } catch (SQLException | RuntimeException e) {
                if (known == null) {
                    throw new IllegalStateException("reading the database's clock failed", e);
                }
                return estimate(known, System.nanoTime());
            }
        }

        /**
         * Whether this caller reads the database's clock now: the last try is older than the refresh interval and
         * no other caller took this turn first. Marks the try, so a database that cannot be read is tried once a
         * refresh.
         */
        private boolean claimRefresh(long now) {
            long last = triedAt.get();
            return now - last > refresh.toNanos() && triedAt.compareAndSet(last, now);
        }

        private Instant estimate(Reading known, long now) {
            return given(known.database().plusNanos(now - known.nanos()));
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
