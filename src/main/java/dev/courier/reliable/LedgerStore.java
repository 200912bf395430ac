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

    private static final String DUE_COLUMNS =
            ReliableDatabase.qualified("d", DELIVERY_COLUMNS) + ", m.topic, m.created_at";

    /**
     * Claims up to {@code limit} deliveries whose report is overdue (or whose failure's backoff ran out), oldest
     * first and at most {@code perSubscriber} of one topic's subscriber, so that one subscriber's long backlog never
     * fills a round while others wait: each claimed row's deadline moves to {@code leaseUntil} and its version on,
     * so on several servers each due row is claimed by one, and what is done with it is fenced by the version
     * returned. A claim not acted on runs out and the row is due again. PostgreSQL: one statement, skipping rows
     * another server holds; Derby: the due rows read in order, each taken with a compare-and-swap on its version.
     */
    List<DueDelivery> claimDue(Connection c, Instant now, Instant leaseUntil, int limit, int perSubscriber)
            throws SQLException {
        return ReliableDatabase.postgres(c)
                ? claimDueInOneStatement(c, now, leaseUntil, limit, perSubscriber)
                : claimDueOneByOne(c, now, leaseUntil, limit, perSubscriber);
    }

    private static List<DueDelivery> claimDueInOneStatement(
            Connection c, Instant now, Instant leaseUntil, int limit, int perSubscriber) throws SQLException {
        try (PreparedStatement claim = c.prepareStatement("WITH due AS (SELECT d.message_id, d.subscriber, "
                + "d.next_attempt_at, row_number() OVER (PARTITION BY m.topic, d.subscriber ORDER BY d.next_attempt_at) "
                + "AS nth FROM courier_rm_delivery d JOIN courier_rm_message m ON m.id = d.message_id "
                + "WHERE d.state = 'DELIVERED' AND d.next_attempt_at <= ?), "
                + "picked AS (SELECT d.message_id, d.subscriber, d.next_attempt_at AS claim_due FROM courier_rm_delivery d "
                + "JOIN due ON due.message_id = d.message_id AND due.subscriber = d.subscriber WHERE due.nth <= ? "
                + "AND d.state = 'DELIVERED' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ? "
                + "FOR UPDATE OF d SKIP LOCKED), "
                + "claimed AS (UPDATE courier_rm_delivery d SET next_attempt_at = ?, version = d.version + 1 "
                + "FROM picked, courier_rm_message m WHERE d.message_id = picked.message_id "
                + "AND d.subscriber = picked.subscriber AND m.id = d.message_id RETURNING " + DUE_COLUMNS
                + ", picked.claim_due) SELECT * FROM claimed ORDER BY claim_due")) {
            claim.setTimestamp(1, timestamp(now), Columns.utc());
            claim.setInt(2, perSubscriber);
            claim.setTimestamp(3, timestamp(now), Columns.utc());
            claim.setInt(4, limit);
            claim.setTimestamp(5, timestamp(leaseUntil), Columns.utc());
            List<DueDelivery> claimed = new ArrayList<>();
            try (ResultSet rows = claim.executeQuery()) {
                while (rows.next()) {
                    claimed.add(new DueDelivery(deliveryRow(rows), rows.getString(11), instant(rows, 12)));
                }
            }
            return claimed;
        }
    }

    private static List<DueDelivery> claimDueOneByOne(
            Connection c, Instant now, Instant leaseUntil, int limit, int perSubscriber) throws SQLException {
        List<DueDelivery> due = new ArrayList<>();
        Map<String, Integer> taken = new java.util.HashMap<>();
        try (PreparedStatement select = c.prepareStatement("SELECT " + DUE_COLUMNS + " FROM courier_rm_delivery d "
                + "JOIN courier_rm_message m ON m.id = d.message_id WHERE d.state = 'DELIVERED' AND d.next_attempt_at <= ? "
                + "ORDER BY d.next_attempt_at")) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
            try (ResultSet rows = select.executeQuery()) {
                while (due.size() < limit && rows.next()) {
                    DueDelivery d = new DueDelivery(deliveryRow(rows), rows.getString(11), instant(rows, 12));
                    if (taken.merge(d.topic() + "\n" + d.row().subscriber(), 1, Integer::sum) <= perSubscriber) {
                        due.add(d);
                    }
                }
            }
        }
        List<DueDelivery> claimed = new ArrayList<>();
        try (PreparedStatement take = c.prepareStatement(
                "UPDATE courier_rm_delivery SET next_attempt_at = ?, "
                        + "version = version + 1 WHERE message_id = ? AND subscriber = ? AND version = ? AND state = 'DELIVERED'")) {
            for (DueDelivery d : due) {
                take.setTimestamp(1, timestamp(leaseUntil), Columns.utc());
                take.setString(2, d.row().messageId());
                take.setString(3, d.row().subscriber());
                take.setLong(4, d.row().version());
                if (ReliableDatabase.exactlyOneOrNone(take.executeUpdate())) {
                    DeliveryRow r = d.row();
                    claimed.add(new DueDelivery(
                            new DeliveryRow(
                                    r.messageId(),
                                    r.subscriber(),
                                    r.state(),
                                    r.attempts(),
                                    r.retryLimit(),
                                    r.timeoutMs(),
                                    leaseUntil,
                                    r.lastError(),
                                    r.consumedAt(),
                                    r.version() + 1),
                            d.topic(),
                            d.createdAt()));
                }
            }
        }
        return claimed;
    }

    /**
     * Gives claimed deliveries back, due at {@code at}, each fenced by the version its claim returned (one handled
     * or reported meanwhile is left as it is): a round that ran out of time does not make them wait a whole lease.
     */
    void releaseClaims(Connection c, List<DeliveryRow> claimed, Instant at) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE courier_rm_delivery SET next_attempt_at = ?, "
                        + "version = version + 1 WHERE message_id = ? AND subscriber = ? AND version = ? AND state = 'DELIVERED'")) {
            for (DeliveryRow d : claimed) {
                update.setTimestamp(1, timestamp(at), Columns.utc());
                update.setString(2, d.messageId());
                update.setString(3, d.subscriber());
                update.setLong(4, d.version());
                update.addBatch();
            }
            update.executeBatch();
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
