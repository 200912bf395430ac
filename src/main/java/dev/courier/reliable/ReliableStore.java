package dev.courier.reliable;

import dev.courier.platform.Columns;
import dev.courier.platform.Dialect;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The SQL of the reliable message service over {@code jdbc/courier}, the same for both databases. Every method
 * runs in the caller's JTA transaction. Times come from the caller's clock.
 */
@ApplicationScoped
class ReliableStore {

    /** Who made a change, recorded in the history: this server's process and host. */
    static final String SERVER = ManagementFactory.getRuntimeMXBean().getName();

    static final String MESSAGE_COLUMNS = "id, topic, producer, state, payload, headers, check_back_ms, "
            + "deliver_at, checks, next_check_at, last_error, version, created_at, updated_at";
    static final String DELIVERY_COLUMNS = "subscriber, state, attempts, retry_limit, last_error, "
            + "next_attempt_at, consumed_at, delivery_timeout_ms, version, message_id";

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    /** A message row as stored. */
    record MessageRow(
            String id,
            String topic,
            String producer,
            MessageState state,
            String payload,
            String headers,
            long checkBackMs,
            Instant deliverAt,
            int checks,
            Instant nextCheckAt,
            String lastError,
            long version,
            Instant createdAt,
            Instant updatedAt) {}

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

    // --- producers

    /**
     * Updates a producer's URLs, or creates it with {@code newSecret} as its signing secret (an update keeps the
     * secret it has). @return true when the producer was created, false when updated
     */
    boolean saveProducer(Connection c, String name, URI checkBack, URI notification, String newSecret, Instant now)
            throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_producer SET check_back_url = ?, "
                + "notification_url = ?, updated_at = ? WHERE name = ?")) {
            update.setString(1, checkBack.toString());
            update.setString(2, notification == null ? null : notification.toString());
            update.setTimestamp(3, ts(now), Columns.utc());
            update.setString(4, name);
            if (update.executeUpdate() == 1) {
                return false;
            }
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_producer (name, check_back_url, "
                + "notification_url, created_at, updated_at, signing_secret) VALUES (?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, name);
            insert.setString(2, checkBack.toString());
            insert.setString(3, notification == null ? null : notification.toString());
            insert.setTimestamp(4, ts(now), Columns.utc());
            insert.setTimestamp(5, ts(now), Columns.utc());
            insert.setString(6, newSecret);
            insert.executeUpdate();
            return true;
        }
    }

    /** A producer's signing secret; empty for no such producer or one registered before signing existed. */
    Optional<String> secret(Connection c, String name) throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT signing_secret FROM courier_rm_producer WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.ofNullable(rows.getString(1)) : Optional.empty();
            }
        }
    }

    /** Replaces a producer's signing secret. @return false when there is no such producer */
    boolean replaceSecret(Connection c, String name, String secret, Instant now) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE courier_rm_producer SET signing_secret = ?, " + "updated_at = ? WHERE name = ?")) {
            update.setString(1, secret);
            update.setTimestamp(2, ts(now), Columns.utc());
            update.setString(3, name);
            return exactlyOneOrNone(update.executeUpdate());
        }
    }

    Optional<Producer> producer(Connection c, String name) throws SQLException {
        List<Producer> found = producers(c, " WHERE name = ?", name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * Whether {@code producer} may prepare on {@code topic}, in one statement (prepare's only read): empty for an
     * unknown producer, else whether the topic has a subscriber.
     */
    Optional<Boolean> topicHasSubscribers(Connection c, String producer, String topic) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT CASE WHEN EXISTS (SELECT 1 FROM "
                + "courier_rm_subscriber WHERE topic = ?) THEN 1 ELSE 0 END FROM courier_rm_producer WHERE name = ?")) {
            select.setString(1, topic);
            select.setString(2, producer);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(rows.getInt(1) == 1) : Optional.empty();
            }
        }
    }

    List<Producer> producers(Connection c) throws SQLException {
        return producers(c, " ORDER BY name", null);
    }

    private static List<Producer> producers(Connection c, String where, String name) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT name, check_back_url, notification_url, created_at FROM courier_rm_producer" + where)) {
            if (name != null) {
                select.setString(1, name);
            }
            try (ResultSet rows = select.executeQuery()) {
                List<Producer> producers = new ArrayList<>();
                while (rows.next()) {
                    String notification = rows.getString(3);
                    producers.add(new Producer(
                            rows.getString(1),
                            URI.create(rows.getString(2)),
                            notification == null ? null : URI.create(notification),
                            instant(rows, 4)));
                }
                return producers;
            }
        }
    }

    /** Pending messages of a producer whose check-back is due, and the last error of its checks. */
    record CheckStatus(long due, long pending, String lastError) {}

    CheckStatus checkStatus(Connection c, String producer, Instant now) throws SQLException {
        long pending;
        long due;
        try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*), SUM(CASE WHEN next_check_at <= ? THEN 1 "
                + "ELSE 0 END) FROM courier_rm_message WHERE producer = ? AND state = 'PENDING'")) {
            select.setTimestamp(1, ts(now), Columns.utc());
            select.setString(2, producer);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                pending = rows.getLong(1);
                due = rows.getLong(2);
            }
        }
        try (PreparedStatement select = c.prepareStatement(
                "SELECT last_error FROM courier_rm_message WHERE producer = ? "
                        + "AND state = 'PENDING' AND last_error IS NOT NULL ORDER BY updated_at DESC FETCH FIRST 1 ROWS ONLY")) {
            select.setString(1, producer);
            try (ResultSet rows = select.executeQuery()) {
                return new CheckStatus(due, pending, rows.next() ? rows.getString(1) : null);
            }
        }
    }

    // --- subscribers

    /** @return true when the subscriber was created, false when updated */
    boolean saveSubscriber(Connection c, Subscriber s, Instant now) throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_subscriber SET retry_limit = ?, "
                + "delivery_timeout_ms = ?, updated_at = ? WHERE topic = ? AND name = ?")) {
            update.setInt(1, s.retryLimit());
            update.setLong(2, s.deliveryTimeout().toMillis());
            update.setTimestamp(3, ts(now), Columns.utc());
            update.setString(4, s.topic());
            update.setString(5, s.name());
            if (update.executeUpdate() == 1) {
                return false;
            }
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_subscriber (topic, name, "
                + "retry_limit, delivery_timeout_ms, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, s.topic());
            insert.setString(2, s.name());
            insert.setInt(3, s.retryLimit());
            insert.setLong(4, s.deliveryTimeout().toMillis());
            insert.setTimestamp(5, ts(now), Columns.utc());
            insert.setTimestamp(6, ts(now), Columns.utc());
            insert.executeUpdate();
            return true;
        }
    }

    /** One count of a grouping: its keys (as selected) and how many rows. */
    record Count(List<String> keys, long count) {}

    /** Live messages by topic and state (PENDING, SENT, DEAD), from the topic index. */
    List<Count> messageCounts(Connection c) throws SQLException {
        return counts(
                c,
                "SELECT topic, state, COUNT(*) FROM courier_rm_message WHERE state IN ('PENDING', 'SENT', "
                        + "'DEAD') GROUP BY topic, state",
                2);
    }

    /** Deliveries not yet consumed (DELIVERED, DEAD) by topic, subscriber and state. */
    List<Count> deliveryCounts(Connection c) throws SQLException {
        return counts(
                c,
                "SELECT m.topic, d.subscriber, d.state, COUNT(*) FROM courier_rm_delivery d JOIN "
                        + "courier_rm_message m ON m.id = d.message_id WHERE d.state IN ('DELIVERED', 'DEAD') "
                        + "GROUP BY m.topic, d.subscriber, d.state",
                3);
    }

    /** Pending messages by producer. */
    List<Count> pendingByProducer(Connection c) throws SQLException {
        return counts(
                c, "SELECT producer, COUNT(*) FROM courier_rm_message WHERE state = 'PENDING' GROUP BY producer", 1);
    }

    private static List<Count> counts(Connection c, String sql, int keys) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(sql);
                ResultSet rows = select.executeQuery()) {
            List<Count> counts = new ArrayList<>();
            while (rows.next()) {
                List<String> values = new ArrayList<>(keys);
                for (int i = 1; i <= keys; i++) {
                    values.add(rows.getString(i));
                }
                counts.add(new Count(values, rows.getLong(keys + 1)));
            }
            return counts;
        }
    }

    /** Sets a topic's grants (encoded, null for none), creating its row on first use. */
    void saveTopicGrants(Connection c, String topic, String grants, Instant now) throws SQLException {
        try (PreparedStatement update =
                c.prepareStatement("UPDATE courier_rm_topic SET grants = ?, updated_at = ? WHERE name = ?")) {
            update.setString(1, grants);
            update.setTimestamp(2, ts(now), Columns.utc());
            update.setString(3, topic);
            if (update.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement insert =
                c.prepareStatement("INSERT INTO courier_rm_topic (name, grants, updated_at) VALUES (?, ?, ?)")) {
            insert.setString(1, topic);
            insert.setString(2, grants);
            insert.setTimestamp(3, ts(now), Columns.utc());
            insert.executeUpdate();
        }
    }

    /** Encoded grants by topic, of {@code topic} only unless it is null; topics without grants are absent. */
    Map<String, String> topicGrants(Connection c, String topic) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT name, grants FROM courier_rm_topic WHERE "
                + "grants IS NOT NULL" + (topic == null ? "" : " AND name = ?"))) {
            if (topic != null) {
                select.setString(1, topic);
            }
            Map<String, String> grants = new HashMap<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    grants.put(rows.getString(1), rows.getString(2));
                }
            }
            return grants;
        }
    }

    /** A message's topic and that topic's encoded grants (null: none). */
    record TopicOf(String topic, String grants) {}

    /** The topic of message {@code id} with its grants; empty for no such message. */
    Optional<TopicOf> topicOf(Connection c, String id) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT m.topic, t.grants FROM courier_rm_message m "
                + "LEFT JOIN courier_rm_topic t ON t.name = m.topic WHERE m.id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(new TopicOf(rows.getString(1), rows.getString(2))) : Optional.empty();
            }
        }
    }

    /** Subscribers of {@code topic}, or of every topic when it is null, by topic and name. */
    List<Subscriber> subscribers(Connection c, String topic) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT topic, name, retry_limit, delivery_timeout_ms "
                + "FROM courier_rm_subscriber" + (topic == null ? "" : " WHERE topic = ?") + " ORDER BY topic, name")) {
            if (topic != null) {
                select.setString(1, topic);
            }
            try (ResultSet rows = select.executeQuery()) {
                List<Subscriber> subscribers = new ArrayList<>();
                while (rows.next()) {
                    subscribers.add(new Subscriber(
                            rows.getString(1), rows.getString(2), rows.getInt(3), Duration.ofMillis(rows.getLong(4))));
                }
                return subscribers;
            }
        }
    }

    // --- messages

    void insertMessage(Connection c, MessageRow m) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_message (" + MESSAGE_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, m.id());
            insert.setString(2, m.topic());
            insert.setString(3, m.producer());
            insert.setString(4, m.state().name());
            insert.setString(5, m.payload());
            insert.setString(6, m.headers());
            insert.setLong(7, m.checkBackMs());
            insert.setTimestamp(8, ts(m.deliverAt()), Columns.utc());
            insert.setInt(9, m.checks());
            insert.setTimestamp(10, ts(m.nextCheckAt()), Columns.utc());
            insert.setString(11, m.lastError());
            insert.setLong(12, m.version());
            insert.setTimestamp(13, ts(m.createdAt()), Columns.utc());
            insert.setTimestamp(14, ts(m.updatedAt()), Columns.utc());
            insert.executeUpdate();
        }
    }

    Optional<MessageRow> message(Connection c, String id) throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT " + MESSAGE_COLUMNS + " FROM courier_rm_message WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(messageRow(rows)) : Optional.empty();
            }
        }
    }

    /**
     * Takes the message's row lock until the transaction ends, so that reports, confirms and cancels of one
     * message run one after the other. @return the row as locked, or empty for an unknown id
     */
    Optional<MessageRow> lock(Connection c, String id) throws SQLException {
        if (postgres(c)) { // one round trip: the update returns the row it locked
            try (PreparedStatement touch = c.prepareStatement("UPDATE courier_rm_message SET version = version + 1 "
                    + "WHERE id = ? RETURNING " + MESSAGE_COLUMNS)) {
                touch.setString(1, id);
                try (ResultSet rows = touch.executeQuery()) {
                    return rows.next() ? Optional.of(messageRow(rows)) : Optional.empty();
                }
            }
        }
        try (PreparedStatement touch =
                c.prepareStatement("UPDATE courier_rm_message SET version = version + 1 WHERE id = ?")) {
            touch.setString(1, id);
            if (touch.executeUpdate() == 0) {
                return Optional.empty();
            }
        }
        return message(c, id);
    }

    /** Moves a locked message to {@code state}, with an optional new payload and headers. */
    void moveMessage(
            Connection c,
            MessageRow m,
            MessageState state,
            String payload,
            String headers,
            Instant now,
            boolean finished)
            throws SQLException {
        m.state().requireMoveTo(state);
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE courier_rm_message SET state = ?, payload = ?, "
                        + "headers = ?, next_check_at = ?, updated_at = ?, finished_at = ?, version = version + 1 WHERE id = ?")) {
            update.setString(1, state.name());
            update.setString(2, payload);
            update.setString(3, headers);
            update.setTimestamp(4, state == MessageState.PENDING ? ts(now) : null, Columns.utc());
            update.setTimestamp(5, ts(now), Columns.utc());
            update.setTimestamp(6, finished ? ts(now) : null, Columns.utc());
            update.setString(7, m.id());
            update.executeUpdate();
        }
    }

    /** Resets the check count of a message resumed from dead. */
    void resetChecks(Connection c, String id) throws SQLException {
        try (PreparedStatement update =
                c.prepareStatement("UPDATE courier_rm_message SET checks = 0, last_error = NULL WHERE id = ?")) {
            update.setString(1, id);
            update.executeUpdate();
        }
    }

    static MessageRow messageRow(ResultSet rows) throws SQLException {
        return new MessageRow(
                rows.getString(1),
                rows.getString(2),
                rows.getString(3),
                MessageState.valueOf(rows.getString(4)),
                rows.getString(5),
                rows.getString(6),
                rows.getLong(7),
                instant(rows, 8),
                rows.getInt(9),
                instant(rows, 10),
                rows.getString(11),
                rows.getLong(12),
                instant(rows, 13),
                instant(rows, 14));
    }

    List<MessageRow> query(Connection c, MessageQuery q) throws SQLException {
        StringBuilder sql = new StringBuilder(
                "SELECT " + MESSAGE_COLUMNS.replaceAll("(^|, )", "$1m.") + " FROM courier_rm_message m WHERE 1 = 1");
        List<String> args = new ArrayList<>();
        if (q.state() != null) {
            sql.append(" AND m.state = ?");
            args.add(q.state().name());
        }
        if (q.topic() != null) {
            sql.append(" AND m.topic = ?");
            args.add(q.topic());
        }
        if (q.producer() != null) {
            sql.append(" AND m.producer = ?");
            args.add(q.producer());
        }
        if (q.subscriber() != null) {
            sql.append(
                    " AND EXISTS (SELECT 1 FROM courier_rm_delivery d WHERE d.message_id = m.id AND d.subscriber = ?");
            args.add(q.subscriber());
            if (q.deliveryState() != null) {
                sql.append(" AND d.state = ?");
                args.add(q.deliveryState().name());
            }
            sql.append(")");
        }
        sql.append(" ORDER BY m.created_at, m.id OFFSET ? ROWS FETCH NEXT ? ROWS ONLY");
        try (PreparedStatement select = c.prepareStatement(sql.toString())) {
            int i = 1;
            for (String arg : args) {
                select.setString(i++, arg);
            }
            select.setInt(i++, q.offset());
            select.setInt(i, q.limit());
            try (ResultSet rows = select.executeQuery()) {
                List<MessageRow> found = new ArrayList<>();
                while (rows.next()) {
                    found.add(messageRow(rows));
                }
                return found;
            }
        }
    }

    // --- check-back claims

    /** A due check-back claimed by this server: its version fences what the check's answer may change. */
    record ClaimedCheck(
            String id,
            String producer,
            URI checkBackUrl,
            String secret,
            int checks,
            long version,
            Instant leaseUntil,
            Instant createdAt) {}

    /**
     * Claims up to {@code limit} pending messages whose check-back is due, by moving their check time to
     * {@code leaseUntil} with a compare-and-swap: on several servers each due message is claimed by one.
     */
    List<ClaimedCheck> claimChecks(Connection c, Instant now, Instant leaseUntil, int limit) throws SQLException {
        List<ClaimedCheck> due = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(
                "SELECT m.id, m.producer, p.check_back_url, m.checks, "
                        + "m.version, p.signing_secret, m.created_at FROM courier_rm_message m JOIN courier_rm_producer p ON p.name = m.producer "
                        + "WHERE m.state = 'PENDING' AND m.next_check_at <= ? ORDER BY m.next_check_at FETCH FIRST ? ROWS ONLY")) {
            select.setTimestamp(1, ts(now), Columns.utc());
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    due.add(new ClaimedCheck(
                            rows.getString(1),
                            rows.getString(2),
                            URI.create(rows.getString(3)),
                            rows.getString(6),
                            rows.getInt(4),
                            rows.getLong(5),
                            leaseUntil,
                            instant(rows, 7)));
                }
            }
        }
        List<ClaimedCheck> claimed = new ArrayList<>();
        try (PreparedStatement claim = c.prepareStatement("UPDATE courier_rm_message SET next_check_at = ?, "
                + "version = version + 1 WHERE id = ? AND version = ? AND state = 'PENDING'")) {
            for (ClaimedCheck check : due) {
                claim.setTimestamp(1, ts(leaseUntil), Columns.utc());
                claim.setString(2, check.id());
                claim.setLong(3, check.version());
                if (exactlyOneOrNone(claim.executeUpdate())) {
                    claimed.add(new ClaimedCheck(
                            check.id(),
                            check.producer(),
                            check.checkBackUrl(),
                            check.secret(),
                            check.checks(),
                            check.version() + 1,
                            leaseUntil,
                            check.createdAt()));
                }
            }
        }
        return claimed;
    }

    /** Sets the next check time of a claimed message, counting a check or not. @return false if it moved on */
    boolean rescheduleCheck(Connection c, ClaimedCheck check, Instant next, boolean counted, String error, Instant now)
            throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_message SET next_check_at = ?, "
                + "checks = checks + ?, last_error = ?, updated_at = ?, version = version + 1 "
                + "WHERE id = ? AND version = ? AND state = 'PENDING'")) {
            update.setTimestamp(1, ts(next), Columns.utc());
            update.setInt(2, counted ? 1 : 0);
            update.setString(3, Content.error(error));
            update.setTimestamp(4, ts(now), Columns.utc());
            update.setString(5, check.id());
            update.setLong(6, check.version());
            return exactlyOneOrNone(update.executeUpdate());
        }
    }

    // --- deliveries

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
            update.setTimestamp(3, ts(nextAttemptAt), Columns.utc());
            update.setString(4, Content.error(error));
            update.setTimestamp(5, ts(consumedAt), Columns.utc());
            update.setString(6, d.messageId());
            update.setString(7, d.subscriber());
            update.setLong(8, d.version());
            return exactlyOneOrNone(update.executeUpdate());
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
                "SELECT " + DELIVERY_COLUMNS.replaceAll("(^|, )", "$1d.")
                        + ", m.topic, m.created_at FROM courier_rm_delivery d JOIN courier_rm_message m ON m.id = d.message_id "
                        + "WHERE d.state = 'DELIVERED' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at FETCH FIRST ? ROWS ONLY")) {
            select.setTimestamp(1, ts(now), Columns.utc());
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

    // --- history

    /** One state change to record: of the message (subscriber null) or of one delivery. */
    /**
     * One move as the history records it: every change of state is recorded, so each is checked against its
     * machine here, including those a batch makes in one statement. {@code from} is null for a new row.
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
                insert.setTimestamp(3, ts(at), Columns.utc());
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

    // --- notices

    void insertNotice(
            Connection c,
            String id,
            String producer,
            String messageId,
            String subscriber,
            String kind,
            String body,
            Instant now)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_notice (id, producer, message_id, "
                + "subscriber, kind, body, attempts, next_attempt_at, version, created_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, ?)")) {
            insert.setString(1, id);
            insert.setString(2, producer);
            insert.setString(3, messageId);
            insert.setString(4, subscriber);
            insert.setString(5, kind);
            insert.setString(6, body);
            insert.setTimestamp(7, ts(now), Columns.utc());
            insert.setTimestamp(8, ts(now), Columns.utc());
            insert.executeUpdate();
        }
    }

    /** A notice claimed for sending. */
    record ClaimedNotice(String id, URI url, String secret, String body, int attempts, long version) {}

    List<ClaimedNotice> claimNotices(Connection c, Instant now, Instant leaseUntil, int limit) throws SQLException {
        List<ClaimedNotice> due = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(
                "SELECT n.id, p.notification_url, n.body, n.attempts, "
                        + "n.version, p.signing_secret FROM courier_rm_notice n JOIN courier_rm_producer p ON p.name = n.producer "
                        + "WHERE n.sent_at IS NULL AND n.next_attempt_at <= ? ORDER BY n.next_attempt_at FETCH FIRST ? ROWS ONLY")) {
            select.setTimestamp(1, ts(now), Columns.utc());
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String url = rows.getString(2);
                    due.add(new ClaimedNotice(
                            rows.getString(1),
                            url == null ? null : URI.create(url),
                            rows.getString(6),
                            rows.getString(3),
                            rows.getInt(4),
                            rows.getLong(5)));
                }
            }
        }
        List<ClaimedNotice> claimed = new ArrayList<>();
        try (PreparedStatement claim = c.prepareStatement("UPDATE courier_rm_notice SET next_attempt_at = ?, "
                + "version = version + 1 WHERE id = ? AND version = ? AND sent_at IS NULL")) {
            for (ClaimedNotice notice : due) {
                claim.setTimestamp(1, ts(leaseUntil), Columns.utc());
                claim.setString(2, notice.id());
                claim.setLong(3, notice.version());
                if (exactlyOneOrNone(claim.executeUpdate())) {
                    claimed.add(new ClaimedNotice(
                            notice.id(),
                            notice.url(),
                            notice.secret(),
                            notice.body(),
                            notice.attempts(),
                            notice.version() + 1));
                }
            }
        }
        return claimed;
    }

    /** Records the outcome of sending a claimed notice: sent, or another attempt at {@code next}. */
    void noticeOutcome(Connection c, ClaimedNotice notice, boolean sent, Instant next, String error, Instant now)
            throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_notice SET sent_at = ?, "
                + "next_attempt_at = ?, attempts = attempts + 1, last_error = ?, version = version + 1 "
                + "WHERE id = ? AND version = ?")) {
            update.setTimestamp(1, sent ? ts(now) : null, Columns.utc());
            update.setTimestamp(2, sent ? null : ts(next), Columns.utc());
            update.setString(3, Content.error(error));
            update.setString(4, notice.id());
            update.setLong(5, notice.version());
            update.executeUpdate();
        }
    }

    // --- retention

    /** Deletes completed and cancelled messages finished before {@code before}, with their ledger and history. */
    int purge(Connection c, Instant before) throws SQLException {
        String finished = "SELECT id FROM courier_rm_message WHERE finished_at < ?";
        // The outbox first, explicitly: the relay takes the outbox before the ledger, and a cascade from the
        // message row would take them the other way round (on Derby, whose table locks then deadlocked).
        for (String table : List.of("courier_rm_outbox", "courier_rm_history", "courier_rm_notice")) {
            try (PreparedStatement delete =
                    c.prepareStatement("DELETE FROM " + table + " WHERE message_id IN (" + finished + ")")) {
                delete.setTimestamp(1, ts(before), Columns.utc());
                delete.executeUpdate();
            }
        }
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM courier_rm_message WHERE finished_at < ?")) {
            delete.setTimestamp(1, ts(before), Columns.utc());
            return delete.executeUpdate();
        }
    }

    /**
     * Bounds how long the rest of the current transaction waits for a row lock (PostgreSQL: 2 s, then SQLSTATE
     * 55P03): the reconciler's steps must not wait without end on a row that an in-doubt or hung transaction holds.
     * Derby bounds every wait itself ({@code derby.locks.waitTimeout}).
     */
    static void boundLockWaits(Connection c) throws SQLException {
        if (postgres(c)) {
            try (PreparedStatement set = c.prepareStatement("SELECT set_config('lock_timeout', '2s', true)")) {
                set.execute();
            }
        }
    }

    // --- helpers

    private static volatile Boolean postgres;

    /** Whether Courier's database is PostgreSQL (asked once: every connection is to the same database). */
    static boolean postgres(Connection c) throws SQLException {
        Boolean known = postgres;
        if (known == null) {
            postgres = known = Dialect.of(c) == Dialect.POSTGRESQL;
        }
        return known;
    }

    /** A fenced single-row update changed one row (ours) or none (someone else's); more is a bug. */
    private static boolean exactlyOneOrNone(int rows) {
        if (rows > 1) {
            throw new IllegalStateException("a fenced update changed " + rows + " rows");
        }
        return rows == 1;
    }

    private static Timestamp ts(Instant instant) {
        return Columns.timestamp(instant);
    }

    private static Instant instant(ResultSet rows, int column) throws SQLException {
        return Columns.instant(rows, column);
    }
}
