package dev.courier.reliable;

import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * What {@link Retention} deletes: finished messages with everything kept about them (outbox entries, ledger,
 * history, notices). Runs in the caller's transaction on the connection it is given.
 */
@ApplicationScoped
class RetentionStore {

    /** Deletes completed and cancelled messages finished before {@code before}, with their ledger and history. */
    int purge(Connection c, Instant before) throws SQLException {
        String finished = "SELECT id FROM courier_rm_message WHERE finished_at < ?";
        // The outbox first, explicitly: the relay takes the outbox before the ledger, and a cascade from the
        // message row would take them the other way round (on Derby, whose table locks then deadlocked).
        for (String table : List.of("courier_rm_outbox", "courier_rm_history", "courier_rm_notice")) {
            try (PreparedStatement delete =
                    c.prepareStatement("DELETE FROM " + table + " WHERE message_id IN (" + finished + ")")) {
                delete.setTimestamp(1, timestamp(before), Columns.utc());
                delete.executeUpdate();
            }
        }
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM courier_rm_message WHERE finished_at < ?")) {
            delete.setTimestamp(1, timestamp(before), Columns.utc());
            return delete.executeUpdate();
        }
    }
}
