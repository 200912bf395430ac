package dev.courier.queue;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Finds which queue database holds a queue or a message, outside the caller's transaction: a lookup is a read of
 * each database, and enlisting every one of them in the caller's transaction would make it a two-phase commit.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.NOT_SUPPORTED)
class QueueLookup {

    Optional<QueueDatabase> holding(List<QueueDatabase> databases, QueueName queue) {
        return first(databases, "SELECT 1 FROM courier_queue WHERE name = ?", queue.value());
    }

    Optional<QueueDatabase> holdingMessage(List<QueueDatabase> databases, String id) {
        return first(databases, "SELECT 1 FROM courier_message WHERE id = ?", id);
    }

    /**
     * The first database where {@code sql} finds a row; one that cannot be read is passed over, but if no other
     * has the row its failure is thrown (an answer "not found" would be a lie while it is down).
     */
    private static Optional<QueueDatabase> first(List<QueueDatabase> databases, String sql, String value) {
        IllegalStateException unread = null;
        for (QueueDatabase database : databases) {
            try {
                if (holds(database, sql, value)) {
                    return Optional.of(database);
                }
            } catch (IllegalStateException e) {
                unread = unread == null ? e : unread;
            }
        }
        if (unread != null) {
            throw unread;
        }
        return Optional.empty();
    }

    /** How many queues the databases hold together. */
    int count(List<QueueDatabase> databases) {
        int count = 0;
        for (QueueDatabase database : databases) {
            try (Connection connection = database.connection();
                    PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM courier_queue");
                    ResultSet rows = select.executeQuery()) {
                rows.next();
                count += rows.getInt(1);
            } catch (SQLException e) {
                throw new IllegalStateException("counting the queues of database " + database.name() + " failed", e);
            }
        }
        return count;
    }

    /** Whether {@code database} holds a row {@code sql} finds for {@code value} (the lookups' one query). */
    private static boolean holds(QueueDatabase database, String sql, String value) {
        try (Connection connection = database.connection();
                PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, value);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("looking in queue database " + database.name() + " failed", e);
        }
    }
}
