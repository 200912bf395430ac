package dev.courier.reliable;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import dev.courier.platform.PageCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The reliable messages ({@code courier_rm_message}): a message's row, its lock, its moves (checked against
 * {@link MessageState}'s machine here, the one place a message's state is written one at a time), queries and
 * counts, and the claims of due check-backs. Every method runs in the caller's transaction on the connection it is
 * given.
 */
@ApplicationScoped
class MessageStore {

    @Inject
    private SecretSeal seal;

    MessageStore() {}

    /** For tests outside a container. */
    MessageStore(SecretSeal seal) {
        this.seal = seal;
    }

    /** A message row's columns, in the order {@link #messageRow} reads them. */
    static final String MESSAGE_COLUMNS = "id, topic, producer, state, payload, headers, check_back_ms, "
            + "deliver_at, checks, next_check_at, last_error, version, created_at, updated_at";

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
            Instant updatedAt) {

        /** This row as stored at {@code now}: created and updated then, its first check-back due its delay later. */
        MessageRow storedAt(Instant now) {
            return new MessageRow(
                    id,
                    topic,
                    producer,
                    state,
                    payload,
                    headers,
                    checkBackMs,
                    deliverAt,
                    checks,
                    now.plusMillis(checkBackMs),
                    lastError,
                    version,
                    now,
                    now);
        }
    }

    /** The message row selected as {@link #MESSAGE_COLUMNS} from the first column on. */
    static MessageRow messageRow(ResultSet rows) throws SQLException {
        return messageRow(rows, 1);
    }

    /** The message row selected as {@link #MESSAGE_COLUMNS} from column {@code first} on. */
    static MessageRow messageRow(ResultSet rows, int first) throws SQLException {
        int i = first - 1;
        return new MessageRow(
                rows.getString(i + 1),
                rows.getString(i + 2),
                rows.getString(i + 3),
                MessageState.valueOf(rows.getString(i + 4)),
                rows.getString(i + 5),
                rows.getString(i + 6),
                rows.getLong(i + 7),
                instant(rows, i + 8),
                rows.getInt(i + 9),
                instant(rows, i + 10),
                rows.getString(i + 11),
                rows.getLong(i + 12),
                instant(rows, i + 13),
                instant(rows, i + 14));
    }

    /** Inserts the rows in one round trip (one batch). */
    void insertMessages(Connection c, List<MessageRow> rows) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_message (" + MESSAGE_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (MessageRow m : rows) {
                insert.setString(1, m.id());
                insert.setString(2, m.topic());
                insert.setString(3, m.producer());
                insert.setString(4, m.state().name());
                insert.setString(5, m.payload());
                insert.setString(6, m.headers());
                insert.setLong(7, m.checkBackMs());
                insert.setTimestamp(8, timestamp(m.deliverAt()), Columns.utc());
                insert.setInt(9, m.checks());
                insert.setTimestamp(10, timestamp(m.nextCheckAt()), Columns.utc());
                insert.setString(11, m.lastError());
                insert.setLong(12, m.version());
                insert.setTimestamp(13, timestamp(m.createdAt()), Columns.utc());
                insert.setTimestamp(14, timestamp(m.updatedAt()), Columns.utc());
                if (rows.size() == 1) {
                    insert.executeUpdate();
                } else {
                    insert.addBatch();
                }
            }
            if (rows.size() > 1) {
                insert.executeBatch();
            }
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
        if (ReliableDatabase.postgres(c)) { // one round trip: the update returns the row it locked
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
            update.setTimestamp(4, state == MessageState.PENDING ? timestamp(now) : null, Columns.utc());
            update.setTimestamp(5, timestamp(now), Columns.utc());
            update.setTimestamp(6, finished ? timestamp(now) : null, Columns.utc());
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

    /** Rows of a page, and whether reading stopped at the byte budget before the row limit. */
    record Page(List<MessageRow> rows, boolean cut) {}

    /**
     * Up to {@code limit} messages matching the query, oldest first, after its cursor. Stops early, after the row
     * that brings the payloads to {@code maxBytes}, so a page of large messages is never held whole in memory.
     */
    Page query(Connection c, MessageQuery q, int limit, long maxBytes) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + ReliableDatabase.qualified("m", MESSAGE_COLUMNS)
                + " FROM courier_rm_message m WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
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
        if (q.after() != null) {
            PageCursor after = PageCursor.decode(q.after());
            sql.append(" AND (m.created_at > ? OR (m.created_at = ? AND m.id > ?))");
            args.add(timestamp(after.at()));
            args.add(timestamp(after.at()));
            args.add(after.id());
        }
        sql.append(" ORDER BY m.created_at, m.id FETCH FIRST ? ROWS ONLY");
        try (PreparedStatement select = c.prepareStatement(sql.toString())) {
            int i = 1;
            for (Object arg : args) {
                if (arg instanceof java.sql.Timestamp time) {
                    select.setTimestamp(i++, time, Columns.utc());
                } else {
                    select.setString(i++, (String) arg);
                }
            }
            select.setInt(i, limit);
            select.setFetchSize(Math.min(limit, 50)); // streamed: the budget, not the driver, bounds memory
            List<MessageRow> found = new ArrayList<>();
            long bytes = 0;
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    MessageRow row = messageRow(rows);
                    found.add(row);
                    bytes += row.payload().getBytes(StandardCharsets.UTF_8).length;
                    if (bytes >= maxBytes && found.size() < limit) {
                        return new Page(found, true);
                    }
                }
            }
            return new Page(found, false);
        }
    }

    /** Live messages by topic and state (PENDING, SENT, DEAD), from the topic index. */
    List<ReliableDatabase.Count> messageCounts(Connection c) throws SQLException {
        return ReliableDatabase.counts(
                c,
                "SELECT topic, state, COUNT(*) FROM courier_rm_message WHERE state IN ('PENDING', 'SENT', "
                        + "'DEAD') GROUP BY topic, state",
                2);
    }

    /** Pending messages by producer. */
    List<ReliableDatabase.Count> pendingByProducer(Connection c) throws SQLException {
        return ReliableDatabase.counts(
                c, "SELECT producer, COUNT(*) FROM courier_rm_message WHERE state = 'PENDING' GROUP BY producer", 1);
    }

    // --- check-backs

    /** Pending messages of a producer whose check-back is due, and the last error of its checks. */
    record CheckStatus(long due, long pending, String lastError) {}

    CheckStatus checkStatus(Connection c, String producer, Instant now) throws SQLException {
        long pending;
        long due;
        try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*), SUM(CASE WHEN next_check_at <= ? THEN 1 "
                + "ELSE 0 END) FROM courier_rm_message WHERE producer = ? AND state = 'PENDING'")) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
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

    /** Pending messages whose check-back is due, with their producer's check-back URL and secret. */
    private static final LeaseClaim DUE_CHECKS = new LeaseClaim(
            "courier_rm_message",
            "m",
            "id",
            "next_check_at",
            "m.state = 'PENDING'",
            "courier_rm_producer p",
            "p.name = m.producer",
            "m.producer, p.check_back_url, m.checks, p.signing_secret, m.created_at");

    /**
     * Claims up to {@code limit} pending messages whose check-back is due, by moving their check time to
     * {@code leaseUntil} ({@link LeaseClaim}): on several servers each due message is claimed by one.
     */
    List<ClaimedCheck> claimChecks(Connection c, Instant now, Instant leaseUntil, int limit) throws SQLException {
        return DUE_CHECKS.claim(
                c,
                now,
                leaseUntil,
                limit,
                (rows, version) -> new ClaimedCheck(
                        rows.getString(1),
                        rows.getString(3),
                        URI.create(rows.getString(4)),
                        seal.open(rows.getString(3), rows.getString(6)),
                        rows.getInt(5),
                        version,
                        leaseUntil,
                        instant(rows, 7)));
    }

    /** Sets the next check time of a claimed message, counting a check or not. @return false if it moved on */
    boolean rescheduleCheck(Connection c, ClaimedCheck check, Instant next, boolean counted, String error, Instant now)
            throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_message SET next_check_at = ?, "
                + "checks = checks + ?, last_error = ?, updated_at = ?, version = version + 1 "
                + "WHERE id = ? AND version = ? AND state = 'PENDING'")) {
            update.setTimestamp(1, timestamp(next), Columns.utc());
            update.setInt(2, counted ? 1 : 0);
            update.setString(3, Content.error(error));
            update.setTimestamp(4, timestamp(now), Columns.utc());
            update.setString(5, check.id());
            update.setLong(6, check.version());
            return ReliableDatabase.exactlyOneOrNone(update.executeUpdate());
        }
    }
}
