package dev.courier.reliable;

import static dev.courier.platform.Columns.instant;
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
import java.util.Map;
import java.util.Optional;

/**
 * The ledger ({@code courier_rm_delivery}): a row per message and subscriber, from the confirm until the subscriber
 * has reported; its moves are checked against {@link DeliveryState}'s machine here, the one place a delivery's
 * state is written one at a time. Every method runs in the caller's transaction on the connection it is given.
 */
@ApplicationScoped
class LedgerStore {

    /** A delivery row's columns, in the order {@link #deliveryRow} reads them. */
    static final String DELIVERY_COLUMNS = "subscriber, state, attempts, retry_limit, last_error, "
            + "next_attempt_at, consumed_at, delivery_timeout_ms, version, message_id";

    /** A delivery row as stored. */
    record DeliveryRow(
            String messageId,
            String subscriber,
            DeliveryState state,
            int attempts,
            int retryLimit,
            long timeoutMs,
            Instant nextAttemptAt,
            String lastError,
            Instant consumedAt,
            long version) {

        DeliveryRecord view() {
            return new DeliveryRecord(subscriber, state, attempts, retryLimit, lastError, nextAttemptAt, consumedAt);
        }
    }

    /** The delivery row selected as {@link #DELIVERY_COLUMNS}. */
    static DeliveryRow deliveryRow(ResultSet rows) throws SQLException {
        return new DeliveryRow(
                rows.getString(10),
                rows.getString(1),
                DeliveryState.valueOf(rows.getString(2)),
                rows.getInt(3),
                rows.getInt(4),
                rows.getLong(8),
                instant(rows, 6),
                rows.getString(5),
                instant(rows, 7),
                rows.getLong(9));
    }

    /** A ledger row per subscriber; its report deadline is set when the relay has published ({@link OutboxStore}). */
    void insertDeliveries(Connection c, String messageId, List<Subscriber> subscribers) throws SQLException {
        insertDeliveries(c, Map.of(messageId, subscribers));
    }

    /** The ledger rows of several messages, in one batch (one multi-row insert on PostgreSQL). */
    void insertDeliveries(Connection c, Map<String, List<Subscriber>> subscribersByMessage) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_delivery (message_id, subscriber, "
                + "state, attempts, retry_limit, delivery_timeout_ms, next_attempt_at, version) "
                + "VALUES (?, ?, 'DELIVERED', 1, ?, ?, NULL, 0)")) {
            for (Map.Entry<String, List<Subscriber>> message : subscribersByMessage.entrySet()) {
                for (Subscriber s : message.getValue()) {
                    insert.setString(1, message.getKey());
                    insert.setString(2, s.name());
                    insert.setInt(3, s.retryLimit());
                    insert.setLong(4, s.deliveryTimeout().toMillis());
                    insert.addBatch();
                }
            }
            insert.executeBatch();
        }
    }

    List<DeliveryRow> deliveries(Connection c, String messageId) throws SQLException {
        return deliveries(c, "message_id = ? ORDER BY subscriber", messageId, null);
    }

    Optional<DeliveryRow> delivery(Connection c, String messageId, String subscriber) throws SQLException {
        List<DeliveryRow> found = deliveries(c, "message_id = ? AND subscriber = ?", messageId, subscriber);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static List<DeliveryRow> deliveries(Connection c, String where, String first, String second)
            throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT " + DELIVERY_COLUMNS + " FROM courier_rm_delivery WHERE " + where)) {
            select.setString(1, first);
            if (second != null) {
                select.setString(2, second);
            }
            try (ResultSet rows = select.executeQuery()) {
                List<DeliveryRow> found = new ArrayList<>();
                while (rows.next()) {
                    found.add(deliveryRow(rows));
                }
                return found;
            }
        }
    }

    /**
     * Moves a delivery (fenced by its version) to {@code state}. @return false if it changed since it was read
     */
    boolean moveDelivery(
            Connection c,
            DeliveryRow d,
            DeliveryState state,
            int attempts,
            Instant nextAttemptAt,
            String error,
            Instant consumedAt)
            throws SQLException {
        d.state().requireMoveTo(state);
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_delivery SET state = ?, attempts = ?, "
                + "next_attempt_at = ?, last_error = ?, consumed_at = ?, version = version + 1 "
                + "WHERE message_id = ? AND subscriber = ? AND version = ?")) {
            update.setString(1, state.name());
            update.setInt(2, attempts);
            update.setTimestamp(3, timestamp(nextAttemptAt), Columns.utc());
            update.setString(4, Content.error(error));
            update.setTimestamp(5, timestamp(consumedAt), Columns.utc());
            update.setString(6, d.messageId());
            update.setString(7, d.subscriber());
            update.setLong(8, d.version());
            return ReliableDatabase.exactlyOneOrNone(update.executeUpdate());
        }
    }

    long unconsumed(Connection c, String messageId) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT COUNT(*) FROM courier_rm_delivery " + "WHERE message_id = ? AND state <> 'CONSUMED'")) {
            select.setString(1, messageId);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** A due delivery with its message's topic (which names the subscriber's queue). */
    record DueDelivery(DeliveryRow row, String topic, Instant createdAt) {}

    /** Deliveries whose report is overdue (or whose failure's backoff ran out), oldest first. */
    List<DueDelivery> dueDeliveries(Connection c, Instant now, int limit) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT " + ReliableDatabase.qualified("d", DELIVERY_COLUMNS)
                        + ", m.topic, m.created_at FROM courier_rm_delivery d JOIN courier_rm_message m ON m.id = d.message_id "
                        + "WHERE d.state = 'DELIVERED' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at FETCH FIRST ? ROWS ONLY")) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
                List<DueDelivery> found = new ArrayList<>();
                while (rows.next()) {
                    found.add(new DueDelivery(deliveryRow(rows), rows.getString(11), instant(rows, 12)));
                }
                return found;
            }
        }
    }

    /** Deliveries not yet consumed (DELIVERED, DEAD) by topic, subscriber and state. */
    List<ReliableDatabase.Count> deliveryCounts(Connection c) throws SQLException {
        return ReliableDatabase.counts(
                c,
                "SELECT m.topic, d.subscriber, d.state, COUNT(*) FROM courier_rm_delivery d JOIN "
                        + "courier_rm_message m ON m.id = d.message_id WHERE d.state IN ('DELIVERED', 'DEAD') "
                        + "GROUP BY m.topic, d.subscriber, d.state",
                3);
    }
}
