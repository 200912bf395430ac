package dev.courier.reliable;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The history ({@code courier_rm_history}): every change of state of a message or of one of its deliveries, with
 * why and on which server, checked against its machine as it is recorded. Every method runs in the caller's
 * transaction on the connection it is given.
 */
@ApplicationScoped
class HistoryStore {

    /** Who made a change, recorded in the history: this server's process and host. */
    static final String SERVER = ManagementFactory.getRuntimeMXBean().getName();

    /**
     * One move as the history records it: of the message (subscriber null) or of one delivery. Every change of
     * state is recorded, so each is checked against its machine here, including those a batch makes in one
     * statement. {@code from} is null for a new row.
     */
    record Moved(String messageId, String subscriber, Enum<?> from, Enum<?> to, String reason) {

        Moved {
            if (from instanceof MessageState message && to instanceof MessageState next) {
                message.requireMoveTo(next);
            } else if (from instanceof DeliveryState delivery && to instanceof DeliveryState next) {
                delivery.requireMoveTo(next);
            } else if (from != null || !(to instanceof MessageState || to instanceof DeliveryState)) {
                throw new IllegalArgumentException("not a move of one machine: " + from + " to " + to);
            }
        }
    }

    void record(Connection c, String messageId, String subscriber, Enum<?> from, Enum<?> to, String reason, Instant at)
            throws SQLException {
        record(c, List.of(new Moved(messageId, subscriber, from, to, reason)), at);
    }

    /** Records several changes in one round trip (one batch). */
    void record(Connection c, List<Moved> changes, Instant at) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_history (message_id, subscriber, "
                + "changed_at, from_state, to_state, reason, server_name) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (Moved m : changes) {
                insert.setString(1, m.messageId());
                insert.setString(2, m.subscriber());
                insert.setTimestamp(3, timestamp(at), Columns.utc());
                insert.setString(4, m.from() == null ? null : m.from().name());
                insert.setString(5, m.to().name());
                insert.setString(6, Content.error(m.reason()));
                insert.setString(7, SERVER);
                if (changes.size() == 1) {
                    insert.executeUpdate();
                } else {
                    insert.addBatch();
                }
            }
            if (changes.size() > 1) {
                insert.executeBatch();
            }
        }
    }

    List<Change> history(Connection c, String messageId) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT changed_at, subscriber, from_state, to_state, "
                + "reason, server_name FROM courier_rm_history WHERE message_id = ? ORDER BY id")) {
            select.setString(1, messageId);
            try (ResultSet rows = select.executeQuery()) {
                List<Change> changes = new ArrayList<>();
                while (rows.next()) {
                    changes.add(new Change(
                            instant(rows, 1),
                            rows.getString(2),
                            rows.getString(3),
                            rows.getString(4),
                            rows.getString(5),
                            rows.getString(6)));
                }
                return changes;
            }
        }
    }
}
