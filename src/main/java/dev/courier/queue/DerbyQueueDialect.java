package dev.courier.queue;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Derby has no {@code SKIP LOCKED}: candidates are read, then each is claimed with a compare-and-swap
 * {@code UPDATE … WHERE id = ? AND version = ?} whose row count says who won (0: another receiver, 1: us).
 * Candidates are read uncommitted ({@code WITH UR}) so that the scan never waits for, or deadlocks with, another
 * receiver's uncommitted claim: a row claimed by someone else already looks leased (its delivery time moved),
 * and a row read in a state that later rolls back no longer has the version read, so its swap fails.
 *
 * <p>Claimers of one queue choose their candidates one at a time within the server and mark them as being
 * taken, so no two claimers race for the same rows; the lock covers only that choice, never a statement that can
 * wait on the database. Taking a candidate may wait for the transaction that inserted it (read uncommitted shows
 * it before it commits), but then only that claimer waits, and it holds no lock another claimer needs: a
 * transaction that sends to a queue and receives from it, while others claim, finishes (embedded Derby lives in
 * exactly one server, so the marks are the whole story).
 */
final class DerbyQueueDialect implements QueueDialect {

    private static final int ROUNDS = 3;
    /** Per queue, the ids some claimer has chosen and not yet taken or dropped. Guarded by the map's entry. */
    private static final ConcurrentMap<QueueName, Set<String>> CHOSEN = new ConcurrentHashMap<>();

    private static final String UNCOMMITTED = " WITH UR";
    private static final String CANDIDATES = """
            SELECT id, version, attempt, lease_expires_at, payload_type, payload, headers
            FROM courier_message
            WHERE queue = ? AND state = 'READY' AND deliver_at <= ? AND attempt < ?
            ORDER BY deliver_at
            FETCH FIRST ? ROWS ONLY""" + UNCOMMITTED;
    private static final String TAKE = """
            UPDATE courier_message
            SET attempt = ?, lease_token = ?, lease_expires_at = ?, deliver_at = ?, version = version + 1
            WHERE id = ? AND version = ?""";

    @Override
    public List<Claimed> claim(
            Connection connection, QueueSpec queue, int max, long maxBytes, Duration lease, Instant now)
            throws SQLException {
        Instant expiry = now.plus(lease);
        String nonce = LeaseToken.nonce();
        List<Claimed> claimed = new ArrayList<>();
        List<History.Failure> expired = new ArrayList<>();
        long bytes = 0;
        for (int round = 0; round < ROUNDS && claimed.size() < max && bytes < maxBytes; round++) {
            List<Candidate> candidates = choose(connection, queue, now, max - claimed.size(), maxBytes - bytes);
            if (candidates.isEmpty()) {
                break;
            }
            boolean lostAny = false;
            try (PreparedStatement take = connection.prepareStatement(TAKE)) {
                for (Candidate candidate : candidates) {
                    int attempt = candidate.attempt + 1;
                    String token = LeaseToken.of(candidate.id, nonce);
                    take.setInt(1, attempt);
                    take.setString(2, token);
                    take.setTimestamp(3, timestamp(expiry), Columns.utc());
                    take.setTimestamp(
                            4,
                            timestamp(expiry.plus(queue.redeliveryDelay(
                                    attempt, ThreadLocalRandom.current().nextDouble()))),
                            Columns.utc());
                    take.setString(5, candidate.id);
                    take.setLong(6, candidate.version);
                    int updated = take.executeUpdate();
                    if (updated == 1) {
                        bytes += candidate.payload.size();
                        claimed.add(new Claimed(
                                new Delivery(
                                        candidate.id,
                                        queue.name(),
                                        candidate.payload,
                                        attempt,
                                        token,
                                        expiry,
                                        candidate.headers),
                                candidate.leaseExpiresAt != null));
                        if (candidate.leaseExpiresAt != null) {
                            expired.add(new History.Failure(
                                    candidate.id,
                                    candidate.attempt,
                                    candidate.leaseExpiresAt,
                                    History.EXPIRED,
                                    "lease expired"));
                        }
                    } else if (updated == 0) {
                        lostAny = true;
                    } else {
                        throw new IllegalStateException(
                                "claim updated " + updated + " rows for message " + candidate.id);
                    }
                }
            } finally {
                // Taken rows now look leased to every uncommitted read; rows not taken are free to choose again.
                release(queue.name(), candidates);
            }
            if (!lostAny) {
                break;
            }
        }
        History.record(connection, expired);
        return claimed;
    }

    /**
     * Reads candidates and marks up to {@code max} of them whose payloads before them stay under {@code maxBytes},
     * skipping rows other claimers marked.
     */
    private static List<Candidate> choose(Connection connection, QueueSpec queue, Instant now, int max, long maxBytes)
            throws SQLException {
        Set<String> chosen = CHOSEN.computeIfAbsent(queue.name(), q -> new HashSet<>());
        // The scan reads uncommitted and so never waits; only it runs under the lock.
        synchronized (chosen) {
            List<Candidate> mine = new ArrayList<>();
            long bytes = 0;
            for (Candidate candidate : candidates(connection, queue, now, max + chosen.size(), chosen, maxBytes)) {
                if (mine.size() < max && bytes < maxBytes && chosen.add(candidate.id)) {
                    mine.add(candidate);
                    bytes += candidate.payload.size();
                }
            }
            return mine;
        }
    }

    private static void release(QueueName queue, List<Candidate> candidates) {
        Set<String> chosen = CHOSEN.get(queue);
        synchronized (chosen) {
            candidates.forEach(c -> chosen.remove(c.id));
        }
    }

    /**
     * The deliverable rows of a window, read until the payloads of those not {@code chosen} by others reach
     * {@code maxBytes}: a window of large messages is never held whole in memory.
     */
    private static List<Candidate> candidates(
            Connection connection, QueueSpec queue, Instant now, int window, Set<String> chosen, long maxBytes)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(CANDIDATES)) {
            select.setString(1, queue.name().value());
            select.setTimestamp(2, timestamp(now), Columns.utc());
            select.setInt(3, queue.maxAttempts());
            select.setInt(4, window);
            List<Candidate> candidates = new ArrayList<>();
            long bytes = 0;
            try (ResultSet rows = select.executeQuery()) {
                while (bytes < maxBytes && rows.next()) {
                    if (chosen.contains(rows.getString(1))) {
                        continue; // another claimer's: its payload is not read
                    }
                    candidates.add(new Candidate(
                            rows.getString(1),
                            rows.getLong(2),
                            rows.getInt(3),
                            instant(rows, 4),
                            Payload.read(rows, 5, 6),
                            Headers.decode(rows.getString(7))));
                    bytes += candidates.get(candidates.size() - 1).payload.size();
                }
            }
            return candidates;
        }
    }

    /** Derby has no {@code RETURNING}: one delete per message, each with its exact count. */
    @Override
    public Optional<LeaseFault.Lost> ack(Connection connection, QueueName queue, List<String> ids, List<String> tokens)
            throws SQLException {
        try (PreparedStatement delete =
                connection.prepareStatement(queue == null ? QueueSql.ACK : QueueSql.ACK + " AND queue = ?")) {
            for (int i = 0; i < ids.size(); i++) {
                delete.setString(1, ids.get(i));
                delete.setString(2, tokens.get(i));
                if (queue != null) {
                    delete.setString(3, queue.value());
                }
                if (delete.executeUpdate() != 1) {
                    return Optional.of(LeaseFault.of(connection, queue, ids.get(i)));
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<LeaseFault.Lost> renew(
            Connection connection, QueueSpec spec, QueueName queue, String id, String token, Instant expiry)
            throws SQLException {
        Optional<StoredMessage> message = leased(connection, queue, id, token);
        if (message.isEmpty()) {
            return Optional.of(LeaseFault.of(connection, queue, id));
        }
        Instant redelivery = expiry.plus(spec.redeliveryDelay(
                message.get().attempt(), ThreadLocalRandom.current().nextDouble()));
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET lease_expires_at = ?, "
                + "deliver_at = ?, version = version + 1 WHERE id = ? AND lease_token = ? AND state = 'READY'")) {
            update.setTimestamp(1, timestamp(expiry), Columns.utc());
            update.setTimestamp(2, timestamp(redelivery), Columns.utc());
            update.setString(3, id);
            update.setString(4, token);
            return update.executeUpdate() == 1 ? Optional.empty() : Optional.of(LeaseFault.of(connection, queue, id));
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
        Optional<StoredMessage> message = leased(connection, queue, id, token);
        if (message.isEmpty()) {
            return new Released(LeaseFault.of(connection, queue, id), false);
        }
        int attempt = message.get().attempt();
        boolean dead = attempt >= spec.maxAttempts();
        String why = reason == null || reason.isBlank()
                ? "released"
                : reason.length() > 1000 ? reason.substring(0, 999) + "…" : reason;
        Instant deliverAt = now.plus(
                delay != null
                        ? delay
                        : spec.redeliveryDelay(
                                attempt, ThreadLocalRandom.current().nextDouble()));
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET state = ?, "
                + "deliver_at = ?, lease_token = NULL, lease_expires_at = NULL, last_error = ?, dead_at = ?, "
                + "version = version + 1 WHERE id = ? AND lease_token = ? AND state = 'READY'")) {
            update.setString(1, dead ? "DEAD" : "READY");
            update.setTimestamp(2, timestamp(deliverAt), Columns.utc());
            update.setString(3, why);
            update.setTimestamp(4, dead ? timestamp(now) : null, Columns.utc());
            update.setString(5, id);
            update.setString(6, token);
            if (update.executeUpdate() != 1) {
                return new Released(LeaseFault.of(connection, queue, id), false);
            }
        }
        History.record(connection, List.of(new History.Failure(id, attempt, now, History.RELEASED, why)));
        return new Released(null, dead);
    }

    /** The message under lease {@code token}, of {@code queue} unless null, or empty. */
    private static Optional<StoredMessage> leased(Connection connection, QueueName queue, String id, String token)
            throws SQLException {
        return StoredMessage.find(connection, id)
                .filter(m -> queue == null || m.queue().equals(queue))
                .filter(m -> token.equals(m.leaseToken()) && "READY".equals(m.state()));
    }

    @Override
    public String selectQueue() {
        return QueueSql.SELECT_QUEUE_DERBY;
    }

    @Override
    public String skipLocked() {
        return UNCOMMITTED;
    }

    @Override
    public List<Sent> send(
            Connection connection, QueueName queue, List<NewMessage> messages, Instant now, Duration keyWindow)
            throws SQLException {
        List<Sent> results = new ArrayList<>(messages.size());
        try (PreparedStatement insert = connection.prepareStatement(QueueSql.INSERT_MESSAGE)) {
            for (NewMessage message : messages) {
                if (message.key() != null) {
                    Optional<Sent> original = registerKey(
                            connection,
                            queue,
                            message.key(),
                            message.id(),
                            message.deliverAt(),
                            now,
                            now.plus(keyWindow));
                    if (original.isPresent()) {
                        results.add(original.get());
                        continue;
                    }
                }
                insert.setString(1, message.id());
                insert.setString(2, queue.value());
                insert.setTimestamp(3, timestamp(message.deliverAt()), Columns.utc());
                insert.setString(4, message.key());
                insert.setString(5, message.payload().type().name());
                insert.setBytes(6, message.payload().bytes());
                insert.setString(7, message.headers());
                insert.setTimestamp(8, timestamp(now), Columns.utc());
                insert.addBatch();
                results.add(new Sent(message.id(), message.deliverAt(), false));
            }
            insert.executeBatch();
        }
        return results;
    }

    /**
     * Binds {@code key} to the new message unless a live binding exists.
     *
     * @return the existing binding when the key is taken within its window, else empty (the new binding is written)
     */
    private static Optional<Sent> registerKey(
            Connection connection,
            QueueName queue,
            String key,
            String messageId,
            Instant deliverAt,
            Instant now,
            Instant expiresAt)
            throws SQLException {
        try (PreparedStatement renew = connection.prepareStatement("""
                UPDATE courier_idempotency_key SET message_id = ?, deliver_at = ?, expires_at = ?
                WHERE queue = ? AND idem_key = ?""" + " AND " + KEY_RELEASED)) {
            renew.setString(1, messageId);
            renew.setTimestamp(2, timestamp(deliverAt), Columns.utc());
            renew.setTimestamp(3, timestamp(expiresAt), Columns.utc());
            renew.setString(4, queue.value());
            renew.setString(5, key);
            renew.setTimestamp(6, timestamp(now), Columns.utc());
            if (renew.executeUpdate() == 1) {
                return Optional.empty(); // the old binding was released: the key is ours now
            }
        }
        try (PreparedStatement insert = connection.prepareStatement("""
                INSERT INTO courier_idempotency_key (queue, idem_key, message_id, deliver_at, expires_at)
                VALUES (?, ?, ?, ?, ?)""")) {
            insert.setString(1, queue.value());
            insert.setString(2, key);
            insert.setString(3, messageId);
            insert.setTimestamp(4, timestamp(deliverAt), Columns.utc());
            insert.setTimestamp(5, timestamp(expiresAt), Columns.utc());
            insert.executeUpdate();
            return Optional.empty();
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
            // Taken by a concurrent send. Derby fails only the statement, not the transaction: ours goes on.
            return boundKey(connection, queue, key);
        }
    }

    /** The message {@code key} is bound to, after a registration found it taken. */
    private static Optional<Sent> boundKey(Connection connection, QueueName queue, String key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT message_id, deliver_at FROM courier_idempotency_key WHERE queue = ? AND idem_key = ?")) {
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

    private record Candidate(
            String id,
            long version,
            int attempt,
            Instant leaseExpiresAt,
            Payload payload,
            java.util.Map<String, String> headers) {}
}
