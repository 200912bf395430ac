package dev.courier.client;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A producer's answer to Courier's check-back, read from the barrier table that {@link ReliableProducer} writes.
 *
 * <p>Never answers ROLLED_BACK for a transaction that later commits: it <em>inserts</em> a ROLLED_BACK marker
 * under the message id. If the producer's transaction already committed its barrier row, the insert hits the
 * unique key and the answer is COMMITTED. If that transaction is still open, the insert waits for it (the database
 * locks the key) and then either sees its commit, or succeeds after its rollback. If the producer's transaction has
 * not written its barrier row yet, the marker takes the key first and the producer's later insert fails, so that
 * transaction cannot commit. A lock wait that times out answers PENDING: on PostgreSQL after {@link #LOCK_WAIT}
 * (3 s), so a producer's transaction left open or in doubt holds no check-back, thread or connection longer; on
 * Derby after its {@code derby.locks.waitTimeout}.
 *
 * <p>Call {@link #answer} with no transaction active (for example from a JAX-RS method, or an EJB method with
 * {@code NOT_SUPPORTED}): each statement must commit on its own.
 */
public final class BarrierCheckBack {

    /** How long the marker waits on PostgreSQL for a producer's transaction that holds the key. */
    public static final Duration LOCK_WAIT = Duration.ofSeconds(3);

    private final DataSource dataSource;
    private final Clock clock = Clock.systemUTC();

    public BarrierCheckBack(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource is required");
    }

    public CheckBackAnswer answer(String messageId) throws SQLException {
        if (messageId == null || messageId.isBlank() || messageId.length() > 36) {
            throw new IllegalArgumentException("a message id of 1 to 36 characters is required");
        }
        try (Connection c = dataSource.getConnection()) {
            if (insertMarker(c, messageId)) {
                return CheckBackAnswer.ROLLED_BACK;
            }
            try (PreparedStatement select =
                    c.prepareStatement("SELECT outcome FROM courier_barrier WHERE message_id = ?")) {
                select.setString(1, messageId);
                try (ResultSet rows = select.executeQuery()) {
                    return rows.next() ? CheckBackAnswer.valueOf(rows.getString(1)) : CheckBackAnswer.PENDING;
                }
            }
        } catch (LockWaitTimedOut e) {
            return CheckBackAnswer.PENDING;
        }
    }

    /**
     * Inserts the ROLLED_BACK marker, waiting at most {@link #LOCK_WAIT} for a producer's transaction that holds the
     * key (open, or in doubt). @return true when the marker committed, false when the key was there
     * @throws LockWaitTimedOut when the wait ran out: the producer's transaction has not ended
     */
    private boolean insertMarker(Connection c, String messageId) throws SQLException {
        boolean postgres = c.getMetaData()
                .getDatabaseProductName()
                .toLowerCase(Locale.ROOT)
                .contains("postgres");
        if (postgres) {
            // lock_timeout for this one statement's transaction only: the pooled connection keeps its own.
            c.setAutoCommit(false);
        }
        try {
            if (postgres) {
                try (PreparedStatement bound = c.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
                    bound.setString(1, LOCK_WAIT.toMillis() + "ms");
                    bound.execute();
                }
            }
            try (PreparedStatement marker = c.prepareStatement(
                    "INSERT INTO courier_barrier (message_id, outcome, created_at) VALUES (?, 'ROLLED_BACK', ?)")) {
                marker.setString(1, messageId);
                marker.setTimestamp(2, Timestamp.from(clock.instant()));
                marker.executeUpdate();
            }
            if (postgres) {
                c.commit();
            }
            return true;
        } catch (SQLException e) {
            if (postgres) {
                c.rollback();
            }
            if (lockTimeout(e)) {
                throw new LockWaitTimedOut();
            }
            if (!ClientTables.duplicateKey(e)) {
                throw e;
            }
            return false;
        } finally {
            if (postgres) {
                c.setAutoCommit(true);
            }
        }
    }

    /** The marker's wait for the key ran out. */
    private static final class LockWaitTimedOut extends SQLException {}

    /** Derby's lock timeout (40XL1) or PostgreSQL's lock_not_available (55P03). */
    private static boolean lockTimeout(SQLException e) {
        return "40XL1".equals(e.getSQLState()) || "55P03".equals(e.getSQLState());
    }
}
