package dev.courier.queue;

import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of messages ({@code courier_message}) and of idempotency keys: every statement on them that is the
 * same on both databases (the claim and key registration differ: {@link QueueDialect}). Every method runs in the
 * caller's transaction on the connection it is given, with the times it is given (the database's:
 * {@link QueueDatabase}); none decides policy.
 */
@ApplicationScoped
class MessageStore {

    @Inject
    private QueueDatabases databases;

    // --- messages

    /**
     * Undoes a claim whose receiver never saw it: the message is deliverable again at {@code now} and the attempt
     * is not counted. Fenced by the token. @return rows updated
     */
    int giveBack(Connection connection, String id, String token, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET deliver_at = ?, "
                + "lease_token = NULL, lease_expires_at = NULL, attempt = attempt - 1, version = version + 1 "
                + "WHERE id = ? AND lease_token = ? AND state = 'READY'")) {
            update.setTimestamp(1, timestamp(now), Columns.utc());
            update.setString(2, id);
            update.setString(3, token);
            return update.executeUpdate();
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
        try (PreparedStatement select = connection.prepareStatement("SELECT " + StoredMessage.COLUMNS
                + " FROM courier_message "
                + "WHERE queue = ? AND state = 'READY' AND deliver_at <= ? AND attempt >= ? ORDER BY deliver_at "
                + "FETCH FIRST " + limit + " ROWS ONLY" + databases.dialect().skipLocked())) {
            select.setString(1, queue.name().value());
            select.setTimestamp(2, timestamp(now), Columns.utc());
            select.setInt(3, queue.maxAttempts());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    exhausted.add(StoredMessage.read(rows));
                }
            }
        }
        int moved = 0;
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET state = 'DEAD', "
                + "lease_token = NULL, lease_expires_at = NULL, last_error = ?, dead_at = ?, version = version + 1 "
                + "WHERE id = ? AND version = ?")) {
            List<History.Failure> failures = new ArrayList<>();
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
                        failures.add(new History.Failure(
                                message.id(),
                                message.attempt(),
                                message.leaseExpiresAt(),
                                History.EXPIRED,
                                "lease expired"));
                    }
                }
            }
            History.record(connection, failures);
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
                + databases.dialect().skipLocked())) {
            select.setTimestamp(1, timestamp(before), Columns.utc());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        }
        int purged = 0;
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM courier_message WHERE id = ? AND state = 'DEAD'")) {
            for (String id : ids) {
                delete.setString(1, id);
                purged += delete.executeUpdate();
            }
        }
        return purged;
    }

    // --- idempotency keys

    /** Forgets up to {@code limit} released keys ({@link QueueDialect#KEY_RELEASED}). @return how many */
    int forgetKeys(Connection connection, Instant now, int limit) throws SQLException {
        List<String[]> keys = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT queue, idem_key FROM "
                + "courier_idempotency_key WHERE " + QueueDialect.KEY_RELEASED
                + " ORDER BY queue, idem_key FETCH FIRST " + limit
                + " ROWS ONLY" + databases.dialect().skipLocked())) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(new String[] {rows.getString(1), rows.getString(2)});
                }
            }
        }
        int forgotten = 0;
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM courier_idempotency_key "
                + "WHERE queue = ? AND idem_key = ? AND " + QueueDialect.KEY_RELEASED)) {
            for (String[] key : keys) {
                delete.setString(1, key[0]);
                delete.setString(2, key[1]);
                delete.setTimestamp(3, timestamp(now), Columns.utc());
                forgotten += delete.executeUpdate();
            }
        }
        return forgotten;
    }

    // --- dead messages

    /** Makes a dead message of the queue live again from {@code deliverAt}, attempts afresh. @return rows (0 or 1) */
    int revive(Connection connection, QueueName queue, String id, Instant deliverAt) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET state = 'READY', "
                + "deliver_at = ?, attempt = 0, dead_at = NULL, version = version + 1 "
                + "WHERE id = ? AND queue = ? AND state = 'DEAD'")) {
            update.setTimestamp(1, timestamp(deliverAt), Columns.utc());
            update.setString(2, id);
            update.setString(3, queue.value());
            return update.executeUpdate();
        }
    }

    void replacePayload(Connection connection, String id, Payload payload) throws SQLException {
        try (PreparedStatement edit =
                connection.prepareStatement("UPDATE courier_message SET payload_type = ?, payload = ? WHERE id = ?")) {
            edit.setString(1, payload.type().name());
            edit.setBytes(2, payload.bytes());
            edit.setString(3, id);
            edit.executeUpdate();
        }
    }

    /** Deletes the queue's dead messages among {@code ids}, in the order given. @return how many */
    int deleteDead(Connection connection, QueueName queue, List<String> ids) throws SQLException {
        int purged = 0;
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM courier_message WHERE id = ? AND queue = ? AND state = 'DEAD'")) {
            for (String id : ids) {
                delete.setString(1, id);
                delete.setString(2, queue.value());
                purged += delete.executeUpdate();
            }
        }
        return purged;
    }

    /** Up to {@code limit} of the queue's dead message ids after {@code after} (null: from the first), by id. */
    List<String> deadIds(Connection connection, QueueName queue, String after, int limit) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT id FROM courier_message "
                + "WHERE queue = ? AND state = 'DEAD' AND id > ? ORDER BY id FETCH FIRST " + limit + " ROWS ONLY")) {
            select.setString(1, queue.value());
            select.setString(2, after == null ? "" : after);
            List<String> ids = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
            return ids;
        }
    }

    /** Rows of a page, and whether reading stopped at the byte budget before the row limit. */
    record Page(List<StoredMessage> rows, boolean cut) {}

    /**
     * Up to {@code limit} of the queue's messages matching {@code filter}, after the id {@code after} (null: from
     * the first), by id; states are judged at {@code now}. Stops early, after the row that brings the payloads to
     * {@code maxBytes}, so a page of large messages is never held whole in memory.
     */
    Page page(
            Connection connection,
            QueueName queue,
            MessageFilter filter,
            String after,
            int limit,
            Instant now,
            long maxBytes)
            throws SQLException {
        StringBuilder sql =
                new StringBuilder("SELECT " + StoredMessage.COLUMNS + " FROM courier_message WHERE queue = ?");
        List<Object> params = new ArrayList<>();
        params.add(queue.value());
        if (filter.state() != null) {
            // Fixed fragments only: the filter's values are bound, never spliced into the SQL.
            switch (filter.state()) {
                case DEAD -> sql.append(" AND state = 'DEAD'");
                case LEASED -> sql.append(" AND state = 'READY' AND lease_expires_at > ?");
                case READY -> sql.append(" AND state = 'READY' AND deliver_at <= ?");
                case SCHEDULED ->
                    sql.append(" AND state = 'READY' AND deliver_at > ?"
                            + " AND (lease_expires_at IS NULL OR lease_expires_at <= ?)");
                default -> throw new IllegalStateException("unexpected state " + filter.state());
            }
            switch (filter.state()) {
                case LEASED, READY -> params.add(timestamp(now));
                case SCHEDULED -> {
                    params.add(timestamp(now));
                    params.add(timestamp(now));
                }
                default -> {}
            }
        }
        if (filter.deliverFrom() != null) {
            sql.append(" AND deliver_at >= ?");
            params.add(timestamp(filter.deliverFrom()));
        }
        if (filter.deliverTo() != null) {
            sql.append(" AND deliver_at < ?");
            params.add(timestamp(filter.deliverTo()));
        }
        if (filter.minAttempts() != null) {
            sql.append(" AND attempt >= ?");
            params.add(filter.minAttempts());
        }
        if (filter.key() != null) {
            sql.append(" AND idempotency_key = ?");
            params.add(filter.key());
        }
        if (after != null) {
            sql.append(" AND id > ?");
            params.add(after);
        }
        sql.append(" ORDER BY id");
        List<StoredMessage> messages = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < params.size(); i++) {
                if (params.get(i) instanceof java.sql.Timestamp time) {
                    select.setTimestamp(i + 1, time, Columns.utc());
                } else {
                    select.setObject(i + 1, params.get(i));
                }
            }
            select.setMaxRows(limit);
            select.setFetchSize(Math.min(limit, 50)); // streamed: the budget, not the driver, bounds memory
            long bytes = 0;
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    StoredMessage message = StoredMessage.read(rows);
                    messages.add(message);
                    bytes += message.payload().size();
                    if (bytes >= maxBytes && messages.size() < limit) {
                        return new Page(messages, true);
                    }
                }
            }
        }
        return new Page(messages, false);
    }
}
