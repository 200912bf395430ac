package dev.courier.queue;

import static dev.courier.platform.Columns.instant;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** One row of {@code courier_message} as read, for the code that inspects or fences on it. */
record StoredMessage(
        String id,
        QueueName queue,
        String state,
        Instant deliverAt,
        int attempt,
        String leaseToken,
        Instant leaseExpiresAt,
        long version,
        String key,
        Payload payload,
        Map<String, String> headers,
        Instant createdAt,
        String lastError,
        Instant deadAt,
        String history) {

    static final String COLUMNS = "id, queue, state, deliver_at, attempt, lease_token, lease_expires_at, version, "
            + "idempotency_key, payload_type, payload, headers, created_at, last_error, dead_at, history";

    static Optional<StoredMessage> find(Connection connection, String id) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT " + COLUMNS + " FROM courier_message WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(read(rows)) : Optional.empty();
            }
        }
    }

    static StoredMessage read(ResultSet rows) throws SQLException {
        return new StoredMessage(
                rows.getString(1),
                QueueName.of(rows.getString(2)),
                rows.getString(3),
                instant(rows, 4),
                rows.getInt(5),
                rows.getString(6),
                instant(rows, 7),
                rows.getLong(8),
                rows.getString(9),
                Payload.read(rows, 10, 11),
                Headers.decode(rows.getString(12)),
                instant(rows, 13),
                rows.getString(14),
                instant(rows, 15),
                rows.getString(16));
    }

    MessageState observedAt(Instant now) {
        return MessageState.observe(state, deliverAt, leaseExpiresAt, now);
    }
}
