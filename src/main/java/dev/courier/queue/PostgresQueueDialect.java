package dev.courier.queue;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL: the claim and the operations by lease token are the SQL API's core functions (V17), which the SQL
 * API's own functions call too.
 */
final class PostgresQueueDialect implements QueueDialect {

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
        try (PreparedStatement claim = connection.prepareStatement(QueueSql.CLAIM_POSTGRESQL)) {
            claim.setString(1, queue.name().value());
            claim.setInt(2, max);
            claim.setLong(3, maxBytes);
            claim.setTimestamp(4, timestamp(now), Columns.utc());
            claim.setTimestamp(5, timestamp(now.plus(lease)), Columns.utc());
            claim.setInt(6, queue.maxAttempts());
            claim.setLong(7, queue.backoff().initial().toMillis());
            claim.setDouble(8, queue.backoff().multiplier());
            claim.setLong(9, queue.backoff().max().toMillis());
            claim.setString(10, LeaseToken.nonce());
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
                    claimed.add(new Claimed(delivery, rows.getBoolean(9)));
                }
            }
            return claimed;
        }
    }

    @Override
    public Optional<LeaseFault.Lost> ack(Connection connection, QueueName queue, List<String> ids, List<String> tokens)
            throws SQLException {
        // One statement text whatever the count (the pairs travel as two arrays): a chain of "(id = ? AND
        // lease_token = ?) OR ..." took 61 ms for 100 messages (the planner gave up on the primary key) and made
        // a new prepared statement per batch size.
        try (PreparedStatement ack = connection.prepareStatement(QueueSql.ACK_POSTGRESQL)) {
            ack.setString(1, queue == null ? null : queue.value());
            ack.setArray(2, connection.createArrayOf("text", ids.toArray()));
            ack.setArray(3, connection.createArrayOf("text", tokens.toArray()));
            return lost(ack);
        }
    }

    @Override
    public Optional<LeaseFault.Lost> renew(
            Connection connection, QueueSpec spec, QueueName queue, String id, String token, Instant expiry)
            throws SQLException {
        try (PreparedStatement renew = connection.prepareStatement(QueueSql.RENEW_POSTGRESQL)) {
            renew.setString(1, queue == null ? null : queue.value());
            renew.setString(2, id);
            renew.setString(3, token);
            renew.setTimestamp(4, timestamp(expiry), Columns.utc());
            try (ResultSet rows = renew.executeQuery()) {
                rows.next();
                String fault = rows.getString(1);
                return fault == null
                        ? Optional.empty()
                        : Optional.of(new LeaseFault.Lost(id, LeaseFault.valueOf(fault)));
            }
        }
    }

    @Override
    public Released release(
            Connection connection,
            QueueSpec spec,
            QueueName queue,
            String id,
            String token,
            Instant now,
            Duration delay,
            String reason)
            throws SQLException {
        try (PreparedStatement release = connection.prepareStatement(QueueSql.RELEASE_POSTGRESQL)) {
            release.setString(1, queue == null ? null : queue.value());
            release.setString(2, id);
            release.setString(3, token);
            release.setTimestamp(4, timestamp(now), Columns.utc());
            if (delay == null) {
                release.setNull(5, Types.BIGINT);
            } else {
                release.setLong(5, delay.toMillis());
            }
            release.setString(6, reason);
            try (ResultSet rows = release.executeQuery()) {
                rows.next();
                String fault = rows.getString(1);
                return new Released(
                        fault == null ? null : new LeaseFault.Lost(id, LeaseFault.valueOf(fault)), rows.getBoolean(2));
            }
        }
    }

    /** {@code courier.core_ack}'s answer: the message and its fault, both null when done. */
    private static Optional<LeaseFault.Lost> lost(PreparedStatement call) throws SQLException {
        try (ResultSet rows = call.executeQuery()) {
            rows.next();
            String fault = rows.getString(2);
            return fault == null
                    ? Optional.empty()
                    : Optional.of(new LeaseFault.Lost(rows.getString(1), LeaseFault.valueOf(fault)));
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
    public List<Sent> send(
            Connection connection, QueueName queue, List<NewMessage> messages, Instant now, Duration keyWindow)
            throws SQLException {
        int n = messages.size();
        String[] ids = new String[n];
        String[] due = new String[n];
        String[] keys = new String[n];
        String[] types = new String[n];
        byte[][] payloads = new byte[n][];
        String[] headers = new String[n];
        for (int i = 0; i < n; i++) {
            NewMessage message = messages.get(i);
            ids[i] = message.id();
            due[i] = message.deliverAt().toString(); // ISO-8601 in UTC: exact, whatever the session's time zone
            keys[i] = message.key();
            types[i] = message.payload().type().name();
            payloads[i] = message.payload().bytes();
            headers[i] = message.headers();
        }
        try (PreparedStatement send = connection.prepareStatement(QueueSql.SEND_POSTGRESQL)) {
            send.setString(1, queue.value());
            send.setArray(2, connection.createArrayOf("text", ids));
            send.setArray(3, connection.createArrayOf("text", due));
            send.setArray(4, connection.createArrayOf("text", keys));
            send.setArray(5, connection.createArrayOf("text", types));
            send.setArray(6, connection.createArrayOf("bytea", payloads));
            send.setArray(7, connection.createArrayOf("text", headers));
            send.setTimestamp(8, timestamp(now), Columns.utc());
            send.setLong(9, keyWindow.toMillis());
            List<Sent> sent = new ArrayList<>(n);
            for (NewMessage message : messages) {
                sent.add(new Sent(message.id(), message.deliverAt(), false));
            }
            try (ResultSet taken = send.executeQuery()) { // rows for the keys already bound only
                while (taken.next()) {
                    sent.set(taken.getInt(1) - 1, new Sent(taken.getString(2), instant(taken, 3), true));
                }
            }
            return sent;
        }
    }
}
