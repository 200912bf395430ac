package dev.courier.queue;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** PostgreSQL: the claim is one statement with {@code FOR UPDATE SKIP LOCKED}; keys use {@code ON CONFLICT}. */
final class PostgresQueueDialect implements QueueDialect {

    private static final String REGISTER_KEY = "INSERT INTO courier_idempotency_key (queue, idem_key, message_id, "
            + "deliver_at, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (queue, idem_key) DO UPDATE "
            + "SET message_id = EXCLUDED.message_id, deliver_at = EXCLUDED.deliver_at, expires_at = EXCLUDED.expires_at "
            + "WHERE " + KEY_RELEASED + " RETURNING message_id";

    @Override
    public void planOnIndexes(Connection connection) throws SQLException {
        try (PreparedStatement plan = connection.prepareStatement(QueueSql.PLAN_ON_INDEXES_POSTGRESQL)) {
            plan.executeQuery().close();
        }
    }

    @Override
    public List<Claimed> claim(
            Connection connection, QueueSpec queue, int max, long maxBytes, Duration lease, Instant now)
            throws SQLException {
        Instant expiry = now.plus(lease);
        // The jitter's ceilings, index k-1 = after delivery k; the statement draws each message's jitter itself.
        Double[] seconds = new Double[queue.maxAttempts()];
        for (int k = 1; k <= queue.maxAttempts(); k++) {
            seconds[k - 1] =
                    k == queue.maxAttempts() ? 0.0 : queue.backoff().ceiling(k).toMillis() / 1000.0;
        }
        Array delays = connection.createArrayOf("float8", seconds);
        try (PreparedStatement claim = connection.prepareStatement(QueueSql.CLAIM_POSTGRESQL)) {
            claim.setString(1, queue.name().value());
            claim.setTimestamp(2, timestamp(now), Columns.utc());
            claim.setInt(3, queue.maxAttempts());
            claim.setInt(4, max);
            claim.setString(5, LeaseToken.nonce());
            claim.setTimestamp(6, timestamp(expiry), Columns.utc());
            claim.setTimestamp(7, timestamp(expiry), Columns.utc());
            claim.setArray(8, delays);
            claim.setLong(9, maxBytes);
            List<Claimed> claimed = new ArrayList<>();
            try (ResultSet rows = claim.executeQuery()) {
                while (rows.next()) {
                    Delivery delivery = new Delivery(
                            rows.getString(1),
                            queue.name(),
                            Payload.read(rows, 5, 6),
                            rows.getInt(2),
                            rows.getString(3),
                            instant(rows, 4),
                            Headers.decode(rows.getString(7)));
                    claimed.add(new Claimed(delivery, instant(rows, 9)));
                }
            }
            return claimed;
        } finally {
            delays.free();
        }
    }

    /** One statement; {@code RETURNING} says which rows it deleted. */
    @Override
    public Set<String> deleteLeased(Connection connection, QueueName queue, List<String> ids, List<String> tokens)
            throws SQLException {
        // One statement text whatever the count (the pairs travel as two arrays): a chain of "(id = ? AND
        // lease_token = ?) OR ..." took 61 ms for 100 messages (the planner gave up on the primary key) and made
        // a new prepared statement per batch size.
        try (PreparedStatement delete = connection.prepareStatement(
                queue == null
                        ? QueueSql.ACK_ALL_POSTGRESQL + " RETURNING m.id"
                        : QueueSql.ACK_ALL_POSTGRESQL + " AND m.queue = ? RETURNING m.id")) {
            delete.setArray(1, connection.createArrayOf("text", ids.toArray()));
            delete.setArray(2, connection.createArrayOf("text", tokens.toArray()));
            if (queue != null) {
                delete.setString(3, queue.value());
            }
            Set<String> deleted = new HashSet<>();
            try (ResultSet rows = delete.executeQuery()) {
                while (rows.next()) {
                    deleted.add(rows.getString(1));
                }
            }
            return deleted;
        }
    }

    @Override
    public String selectQueue() {
        return QueueSql.SELECT_QUEUE;
    }

    @Override
    public String skipLocked() {
        return " FOR UPDATE SKIP LOCKED";
    }

    @Override
    public Optional<Sent> registerKey(
            Connection connection,
            QueueName queue,
            String key,
            String messageId,
            Instant deliverAt,
            Instant now,
            Instant expiresAt)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(REGISTER_KEY)) {
            insert.setString(1, queue.value());
            insert.setString(2, key);
            insert.setString(3, messageId);
            insert.setTimestamp(4, timestamp(deliverAt), Columns.utc());
            insert.setTimestamp(5, timestamp(expiresAt), Columns.utc());
            insert.setTimestamp(6, timestamp(now), Columns.utc());
            try (ResultSet rows = insert.executeQuery()) {
                if (rows.next()) {
                    return Optional.empty();
                }
            }
        }
        return boundKey(connection, queue, key);
    }
}
