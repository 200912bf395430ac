package dev.courier.queue;

import dev.courier.platform.Columns;
import dev.courier.platform.Dialect;
import dev.courier.platform.SchemaMigration;
import dev.courier.platform.TimeShift;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The SQL of the transactional queue, over {@code jdbc/courier}. Every method runs in the caller's JTA
 * transaction (the container enlists the connection). Times are the database's: an operation reads the
 * database's clock with the queue's settings ({@link #requireQueue}) and writes and compares with that time, so
 * that all servers agree on what "now" is whatever their own clocks say (embedded Derby lives in the server's
 * JVM, so there the server's clock is the database's). Tests move it with {@link TimeShift}.
 */
@ApplicationScoped
class MessageStore {

    static final String COLUMNS = "id, queue, state, deliver_at, attempt, lease_token, lease_expires_at, version, "
            + "idempotency_key, payload_type, payload, headers, created_at, last_error, dead_at, history";

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private SchemaMigration schema;

    @Inject
    private Clock clock;

    @Inject
    private TimeShift shift;

    private volatile QueueDialect dialect;

    Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    QueueDialect dialect() {
        QueueDialect current = dialect;
        if (current == null) {
            current = schema.dialect() == Dialect.POSTGRESQL ? new PostgresQueueDialect() : new DerbyQueueDialect();
            dialect = current;
        }
        return current;
    }

    // --- queues


    List<QueueSpec> queues(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(QueueSql.SELECT_QUEUES + " ORDER BY name");
                ResultSet rows = select.executeQuery()) {
            List<QueueSpec> queues = new ArrayList<>();
            while (rows.next()) {
                queues.add(spec(rows));
            }
            return queues;
        }
    }

    /** A queue's settings and the database's time, read together at the start of an operation. */
    record QueueNow(QueueSpec spec, Instant now) {
    }

    Optional<QueueNow> queue(Connection connection, QueueName name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(dialect().selectQueue())) {
            select.setString(1, name.value());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(new QueueNow(spec(rows), shifted(instant(rows, 7))))
                        : Optional.empty();
            }
        }
    }

    static QueueSpec spec(ResultSet rows) throws SQLException {
        return new QueueSpec(QueueName.of(rows.getString(1)), Duration.ofMillis(rows.getLong(2)), rows.getInt(3),
                new Backoff(Duration.ofMillis(rows.getLong(4)), rows.getDouble(5), Duration.ofMillis(rows.getLong(6))));
    }

    /** The queue's settings and the time. @throws QueueNotFoundException 404 when it does not exist */
    QueueNow requireQueue(Connection connection, QueueName name) throws SQLException {
        return queue(connection, name).orElseThrow(() -> new QueueNotFoundException(name));
    }

    /** The database's time, for an operation that reads no queue first. */
    Instant now(Connection connection) throws SQLException {
        String select = dialect().selectClock();
        if (select == null) {
            return clock.instant();
        }
        try (PreparedStatement query = connection.prepareStatement(select);
                ResultSet rows = query.executeQuery()) {
            rows.next();
            return shifted(instant(rows, 1));
        }
    }

    private Instant shifted(Instant database) {
        return database == null ? clock.instant() : database.plus(shift.ahead());
    }

    // --- messages

    /** A row to insert; {@code headers} already encoded by {@link Headers#encode}. */
    record NewMessage(String id, QueueName queue, Instant deliverAt, String key, Payload payload, String headers,
            Instant createdAt) {
    }

    void insert(Connection connection, List<NewMessage> messages) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(QueueSql.INSERT_MESSAGE)) {
            for (NewMessage message : messages) {
                insert.setString(1, message.id());
                insert.setString(2, message.queue().value());
                insert.setTimestamp(3, timestamp(message.deliverAt()), Columns.utc());
                insert.setString(4, message.key());
                insert.setString(5, message.payload().type().name());
                insert.setBytes(6, message.payload().bytes());
                insert.setString(7, message.headers());
                insert.setTimestamp(8, timestamp(message.createdAt()), Columns.utc());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    Optional<StoredMessage> find(Connection connection, String id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT " + COLUMNS + " FROM courier_message WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(stored(rows)) : Optional.empty();
            }
        }
    }

    static StoredMessage stored(ResultSet rows) throws SQLException {
        return new StoredMessage(rows.getString(1), QueueName.of(rows.getString(2)), rows.getString(3),
                instant(rows, 4), rows.getInt(5), rows.getString(6), instant(rows, 7), rows.getLong(8),
                rows.getString(9), payload(rows, 10, 11), Headers.decode(rows.getString(12)), instant(rows, 13),
                rows.getString(14), instant(rows, 15), rows.getString(16));
    }

    /** Deletes the message if {@code token} is its current lease. @return rows deleted */
    int deleteLeased(Connection connection, String id, String token) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(QueueSql.ACK)) {
            delete.setString(1, id);
            delete.setString(2, token);
            return delete.executeUpdate();
        }
    }

    /**
     * {@link #deleteLeased} for several messages in one statement. Ids must be distinct. @return rows deleted in
     * all: equal to the number of ids exactly when every token was its message's current lease
     */
    int deleteLeased(Connection connection, List<String> ids, List<String> tokens) throws SQLException {
        // A fixed fragment repeated per message, every value bound: the same SQL on both databases.
        String sql = "DELETE FROM courier_message WHERE "
                + String.join(" OR ", java.util.Collections.nCopies(ids.size(), "(id = ? AND lease_token = ?)"));
        try (PreparedStatement delete = connection.prepareStatement(sql)) {
            for (int i = 0; i < ids.size(); i++) {
                delete.setString(2 * i + 1, ids.get(i));
                delete.setString(2 * i + 2, tokens.get(i));
            }
            return delete.executeUpdate();
        }
    }

    /** Moves a leased message's lease expiry and redelivery time, if {@code token} is still its lease. */
    int renew(Connection connection, String id, String token, Instant expiry, Instant deliverAt) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET lease_expires_at = ?, "
                + "deliver_at = ?, version = version + 1 WHERE id = ? AND lease_token = ? AND state = 'READY'")) {
            update.setTimestamp(1, timestamp(expiry), Columns.utc());
            update.setTimestamp(2, timestamp(deliverAt), Columns.utc());
            update.setString(3, id);
            update.setString(4, token);
            return update.executeUpdate();
        }
    }

    /**
     * Ends a lease without ack: the message returns at {@code deliverAt}, or goes to dead when {@code dead}.
     * Fenced by the token. @return rows updated
     */
    int endLease(Connection connection, String id, String token, Instant deliverAt, String reason, Instant deadAt)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET state = ?, "
                + "deliver_at = ?, lease_token = NULL, lease_expires_at = NULL, last_error = ?, dead_at = ?, "
                + "version = version + 1 WHERE id = ? AND lease_token = ? AND state = 'READY'")) {
            update.setString(1, deadAt == null ? "READY" : "DEAD");
            update.setTimestamp(2, timestamp(deliverAt), Columns.utc());
            update.setString(3, reason);
            update.setTimestamp(4, timestamp(deadAt), Columns.utc());
            update.setString(5, id);
            update.setString(6, token);
            return update.executeUpdate();
        }
    }

    /** A failed attempt to append to a message's history. */
    record Failure(String messageId, int attempt, Instant at, String kind, String reason) {
    }

    /**
     * Appends failed attempts to their messages' history, in place (no second table: nothing for Derby to lock
     * beyond the row the caller already holds). The history stops growing near the column's limit; the last
     * error is always on the row.
     */
    void recordFailures(Connection connection, List<Failure> failures) throws SQLException {
        if (failures.isEmpty()) {
            return;
        }
        // The guard counts the new line too (a reason escaped into JSON can be several times its length).
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET history = "
                + "CASE WHEN LENGTH(COALESCE(history, '')) + ? > " + History.MAX_LENGTH + " THEN history "
                + "ELSE COALESCE(history, '') || ? END WHERE id = ?")) {
            for (Failure failure : failures) {
                String line = History.line(new FailedAttempt(failure.attempt(), failure.at(), failure.kind(),
                        failure.reason()));
                update.setInt(1, line.length());
                update.setString(2, line);
                update.setString(3, failure.messageId());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    /**
     * Moves up to {@code limit} of the queue's live messages that are out of attempts and no longer leased to
     * dead, recording the expiry of their last lease; rows another transaction holds are skipped (the next sweep
     * gets them). @return how many moved
     */
    int exhaust(Connection connection, QueueSpec queue, Instant now, int limit) throws SQLException {
        List<StoredMessage> exhausted = new ArrayList<>();
        // The limit is a constant of the caller's, never input: formatted in, as FETCH FIRST takes no parameter
        // on every database.
        try (PreparedStatement select = connection.prepareStatement("SELECT " + COLUMNS + " FROM courier_message "
                + "WHERE queue = ? AND state = 'READY' AND deliver_at <= ? AND attempt >= ? ORDER BY deliver_at "
                + "FETCH FIRST " + limit + " ROWS ONLY" + dialect().skipLocked())) {
            select.setString(1, queue.name().value());
            select.setTimestamp(2, timestamp(now), Columns.utc());
            select.setInt(3, queue.maxAttempts());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    exhausted.add(stored(rows));
                }
            }
        }
        int moved = 0;
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET state = 'DEAD', "
                + "lease_token = NULL, lease_expires_at = NULL, last_error = ?, dead_at = ?, version = version + 1 "
                + "WHERE id = ? AND version = ?")) {
            List<Failure> failures = new ArrayList<>();
            for (StoredMessage message : exhausted) {
                message.observedAt(now).requireMoveTo(MessageState.DEAD);
                String reason = message.leaseToken() != null
                        ? "lease expired on attempt " + message.attempt() + " of " + queue.maxAttempts()
                        : message.lastError();
                update.setString(1, reason);
                update.setTimestamp(2, timestamp(now), Columns.utc());
                update.setString(3, message.id());
                update.setLong(4, message.version());
                if (update.executeUpdate() == 1) {
                    moved++;
                    if (message.leaseToken() != null) {
                        failures.add(new Failure(message.id(), message.attempt(), message.leaseExpiresAt(),
                                History.EXPIRED, "lease expired"));
                    }
                }
            }
            recordFailures(connection, failures);
        }
        return moved;
    }

    /**
     * Deletes up to {@code limit} dead messages that died before {@code before}, in id order (two servers
     * deleting the same rows lock them in the same order, so they cannot deadlock). @return how many
     */
    int purgeDead(Connection connection, Instant before, int limit) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT id FROM courier_message "
                + "WHERE state = 'DEAD' AND dead_at < ? ORDER BY id FETCH FIRST " + limit + " ROWS ONLY"
                + dialect().skipLocked())) {
            select.setTimestamp(1, timestamp(before), Columns.utc());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        }
        int purged = 0;
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM courier_message WHERE id = ? AND state = 'DEAD'")) {
            for (String id : ids) {
                delete.setString(1, id);
                purged += delete.executeUpdate();
            }
        }
        return purged;
    }

    // --- idempotency keys

    /**
     * Whether a key's binding may be dropped or taken over: its window is over and the message it names is gone
     * (acked or purged). A message scheduled or retrying past the window keeps its key, so it cannot be sent twice.
     */
    static final String KEY_RELEASED = "courier_idempotency_key.expires_at <= ? AND NOT EXISTS "
            + "(SELECT 1 FROM courier_message m WHERE m.id = courier_idempotency_key.message_id)";

    /** Forgets up to {@code limit} released keys ({@link #KEY_RELEASED}). @return how many */
    int forgetKeys(Connection connection, Instant now, int limit) throws SQLException {
        List<String[]> keys = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT queue, idem_key FROM "
                + "courier_idempotency_key WHERE " + KEY_RELEASED + " ORDER BY queue, idem_key FETCH FIRST " + limit
                + " ROWS ONLY" + dialect().skipLocked())) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(new String[] {rows.getString(1), rows.getString(2)});
                }
            }
        }
        int forgotten = 0;
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM courier_idempotency_key "
                + "WHERE queue = ? AND idem_key = ? AND " + KEY_RELEASED)) {
            for (String[] key : keys) {
                delete.setString(1, key[0]);
                delete.setString(2, key[1]);
                delete.setTimestamp(3, timestamp(now), Columns.utc());
                forgotten += delete.executeUpdate();
            }
        }
        return forgotten;
    }

    static Optional<Sent> boundKey(Connection connection, QueueName queue, String key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT message_id, deliver_at "
                + "FROM courier_idempotency_key WHERE queue = ? AND idem_key = ?")) {
            select.setString(1, queue.value());
            select.setString(2, key);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw new IllegalStateException("idempotency key " + key + " conflicted but is not bound");
                }
                return Optional.of(new Sent(rows.getString(1), instant(rows, 2), true));
            }
        }
    }

    // --- column helpers

    static Timestamp timestamp(Instant instant) {
        return Columns.timestamp(instant);
    }

    static Instant instant(ResultSet rows, int column) throws SQLException {
        return Columns.instant(rows, column);
    }

    static Payload payload(ResultSet rows, int typeColumn, int bytesColumn) throws SQLException {
        return Payload.stored(PayloadType.valueOf(rows.getString(typeColumn)), rows.getBytes(bytesColumn));
    }
}
