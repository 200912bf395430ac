package dev.courier.client;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
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
 * transaction cannot commit. A lock wait that times out answers PENDING.
 *
 * <p>Call {@link #answer} with no transaction active (for example from a JAX-RS method, or an EJB method with
 * {@code NOT_SUPPORTED}): each statement must commit on its own.
 */
public final class BarrierCheckBack {

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
            try (PreparedStatement marker = c.prepareStatement(
                    "INSERT INTO courier_barrier (message_id, outcome, created_at) VALUES (?, 'ROLLED_BACK', ?)")) {
                marker.setString(1, messageId);
                marker.setTimestamp(2, Timestamp.from(clock.instant()));
                marker.executeUpdate();
                return CheckBackAnswer.ROLLED_BACK;
            } catch (SQLException e) {
                if (lockTimeout(e)) {
                    return CheckBackAnswer.PENDING;
                }
                if (!ClientTables.duplicateKey(e)) {
                    throw e;
                }
            }
            try (PreparedStatement select =
                    c.prepareStatement("SELECT outcome FROM courier_barrier WHERE message_id = ?")) {
                select.setString(1, messageId);
                try (ResultSet rows = select.executeQuery()) {
                    return rows.next() ? CheckBackAnswer.valueOf(rows.getString(1)) : CheckBackAnswer.PENDING;
                }
            }
        }
    }

    /** Derby's lock timeout (40XL1) or PostgreSQL's lock_not_available (55P03). */
    private static boolean lockTimeout(SQLException e) {
        return "40XL1".equals(e.getSQLState()) || "55P03".equals(e.getSQLState());
    }
}
