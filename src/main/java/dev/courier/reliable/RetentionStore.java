package dev.courier.reliable;

import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link Retention} deletes: finished messages with everything kept about them (outbox entries, ledger,
 * history, notices). Runs in the caller's transaction on the connection it is given.
 */
@ApplicationScoped
class RetentionStore {

    /**
     * Deletes up to {@code limit} completed and cancelled messages finished before {@code before}, with their
     * ledger and history. Bounded so that a purge of a week's messages is many short transactions, not one that
     * holds the locks of them all (on Derby, more than a few thousand rows' locks become a table lock, which
     * deadlocked with the relay). @return how many messages it deleted
     */
    int purge(Connection c, Instant before, int limit) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement select =
                c.prepareStatement("SELECT id FROM courier_rm_message WHERE finished_at < ? FETCH FIRST ? ROWS ONLY")) {
            select.setTimestamp(1, timestamp(before), Columns.utc());
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        String marks = ReliableDatabase.placeholders(ids.size());
        // The outbox first, explicitly: the relay takes the outbox before the ledger, and a cascade from the
        // message row would take them the other way round (on Derby, whose table locks then deadlocked).
        for (String table : List.of("courier_rm_outbox", "courier_rm_history", "courier_rm_notice")) {
            delete(c, "DELETE FROM " + table + " WHERE message_id IN (" + marks + ")", ids);
        }
        return delete(c, "DELETE FROM courier_rm_message WHERE id IN (" + marks + ")", ids);
    }

    private static int delete(Connection c, String sql, List<String> ids) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement(sql)) {
            for (int i = 0; i < ids.size(); i++) {
                delete.setString(i + 1, ids.get(i));
            }
            return delete.executeUpdate();
        }
    }
}
