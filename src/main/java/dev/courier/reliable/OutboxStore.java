package dev.courier.reliable;

import dev.courier.platform.Columns;
import dev.courier.platform.Dialect;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The SQL of the outbox ({@code courier_rm_outbox}): what a confirm, a redelivery or a replay has committed to send,
 * and what the {@link Relay} takes from it. Every method runs in the caller's transaction.
 *
 * <p>An entry is sent as one copy per delivery it is for, each marked with its subscriber, never as one publish
 * the broker fans out to every queue of the topic: a subscriber whose queue was created after the confirm (and so
 * has no ledger row for the message) must not get a copy it could never report on.
 */
@ApplicationScoped
class OutboxStore {

    /** One send the relay owes the broker: to every subscriber (subscriber null) or to one. */
    record Entry(String id, String subscriber, int attempt, MessageStore.MessageRow message) {}

    private static final String CLAIM = "SELECT o.id, o.subscriber, o.attempt, "
            + ReliableDatabase.qualified("m", MessageStore.MESSAGE_COLUMNS)
            + " FROM courier_rm_outbox o JOIN courier_rm_message m ON m.id = o.message_id "
            + "ORDER BY o.created_at FETCH FIRST ? ROWS ONLY";

    /** Records a send owed to the broker, in the transaction that decided it. */
    void insert(Connection c, String messageId, String subscriber, int attempt, Instant now) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(INSERT)) {
            set(insert, messageId, subscriber, attempt, now);
            insert.executeUpdate();
        }
    }

    /** The first publish of each of several messages to all its subscribers, in one batch. */
    void insertPublishes(Connection c, List<String> messageIds, Instant now) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(INSERT)) {
            for (String id : messageIds) {
                set(insert, id, null, 1, now);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private static final String INSERT =
            "INSERT INTO courier_rm_outbox (id, message_id, subscriber, attempt, created_at) "
                    + "VALUES (?, ?, ?, ?, ?)";

    private static void set(PreparedStatement insert, String messageId, String subscriber, int attempt, Instant now)
            throws SQLException {
        insert.setString(1, UUID.randomUUID().toString());
        insert.setString(2, messageId);
        insert.setString(3, subscriber);
        insert.setInt(4, attempt);
        insert.setTimestamp(5, Columns.timestamp(now), Columns.utc());
    }

    /**
     * Takes up to {@code limit} entries, oldest first. On PostgreSQL their rows stay locked until the caller's
     * transaction ends and rows another relay holds are skipped, so servers relay disjoint batches; Derby (embedded,
     * one server, one relay thread) has no {@code SKIP LOCKED} and needs none.
     */
    List<Entry> claim(Connection c, Dialect dialect, int limit) throws SQLException {
        String sql = dialect == Dialect.POSTGRESQL ? CLAIM + " FOR UPDATE OF o SKIP LOCKED" : CLAIM;
        try (PreparedStatement select = c.prepareStatement(sql)) {
            select.setInt(1, limit);
            try (ResultSet rows = select.executeQuery()) {
                List<Entry> entries = new ArrayList<>();
                while (rows.next()) {
                    entries.add(new Entry(
                            rows.getString(1), rows.getString(2), rows.getInt(3), MessageStore.messageRow(rows, 4)));
                }
                return entries;
            }
        }
    }

    /** A delivery an entry goes to: its subscriber and its report timeout. */
    record Target(String subscriber, long timeoutMs) {}

    /**
     * The deliveries each entry goes to, by entry id: the message's deliveries still waiting for their copy
     * ({@code DELIVERED} with no report deadline yet), all of them for a publish, the one subscriber's for a
     * redelivery. A subscriber added after the confirm has no delivery of the message, so it gets no copy, and a
     * delivery reported meanwhile gets none either.
     */
    Map<String, List<Target>> targets(Connection c, List<Entry> entries) throws SQLException {
        Map<String, List<Target>> byMessage = new HashMap<>();
        String marks = ReliableDatabase.placeholders(entries.size());
        try (PreparedStatement select = c.prepareStatement("SELECT message_id, subscriber, delivery_timeout_ms "
                + "FROM courier_rm_delivery WHERE state = 'DELIVERED' AND next_attempt_at IS NULL AND message_id IN ("
                + marks + ") ORDER BY message_id, subscriber")) {
            int i = 1;
            for (Entry e : entries) {
                select.setString(i++, e.message().id());
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    byMessage
                            .computeIfAbsent(rows.getString(1), id -> new ArrayList<>())
                            .add(new Target(rows.getString(2), rows.getLong(3)));
                }
            }
        }
        Map<String, List<Target>> targets = new HashMap<>();
        for (Entry e : entries) {
            targets.put(
                    e.id(),
                    byMessage.getOrDefault(e.message().id(), List.of()).stream()
                            .filter(t ->
                                    e.subscriber() == null || e.subscriber().equals(t.subscriber()))
                            .toList());
        }
        return targets;
    }

    /**
     * Marks entries the broker has committed: deletes them, and starts the report deadline of each delivery they
     * carried (the subscriber's timeout from now, or from the delivery time of a message held for later). A
     * delivery reported meanwhile keeps its state. Rows are touched in key order, so two relays never deadlock.
     */
    void relayed(Connection c, Dialect dialect, List<Entry> entries, Map<String, List<Target>> targets, Instant now)
            throws SQLException {
        List<Deadline> deadlines = new ArrayList<>();
        for (Entry e : entries) {
            MessageStore.MessageRow m = e.message();
            Instant from = m.deliverAt() != null && m.deliverAt().isAfter(now) ? m.deliverAt() : now;
            for (Target t : targets.get(e.id())) {
                deadlines.add(new Deadline(m.id(), t.subscriber(), from.plusMillis(t.timeoutMs())));
            }
        }
        deadlines.sort(Comparator.comparing(Deadline::messageId).thenComparing(Deadline::subscriber));
        if (dialect == Dialect.POSTGRESQL) {
            relayedTogether(c, entries, deadlines);
            return;
        }
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM courier_rm_outbox WHERE id = ?")) {
            for (Entry e : entries) {
                delete.setString(1, e.id());
                delete.addBatch();
            }
            delete.executeBatch();
        }
        if (deadlines.isEmpty()) {
            return;
        }
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_delivery SET next_attempt_at = ? "
                + "WHERE message_id = ? AND subscriber = ? AND state = 'DELIVERED' AND next_attempt_at IS NULL")) {
            for (Deadline d : deadlines) {
                update.setTimestamp(1, Columns.timestamp(d.at()), Columns.utc());
                update.setString(2, d.messageId());
                update.setString(3, d.subscriber());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    private record Deadline(String messageId, String subscriber, Instant at) {}

    /** {@link #relayed} in two statements whatever the batch's size: the rows travel as arrays. */
    private static void relayedTogether(Connection c, List<Entry> entries, List<Deadline> deadlines)
            throws SQLException {
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM courier_rm_outbox WHERE id = ANY(?)")) {
            delete.setArray(
                    1, c.createArrayOf("text", entries.stream().map(Entry::id).toArray()));
            delete.executeUpdate();
        }
        if (deadlines.isEmpty()) {
            return;
        }
        // The inner select locks the rows in key order (a join alone touches them in any order, and a batch of
        // reports locking the same rows in another could deadlock with it).
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_delivery d SET next_attempt_at = r.at "
                + "FROM (SELECT x.message_id, x.subscriber, u.at FROM courier_rm_delivery x JOIN unnest(?::text[], "
                + "?::text[], ?::timestamptz[]) AS u(message_id, subscriber, at) ON x.message_id = u.message_id "
                + "AND x.subscriber = u.subscriber WHERE x.state = 'DELIVERED' AND x.next_attempt_at IS NULL "
                + "ORDER BY x.message_id COLLATE \"C\", x.subscriber COLLATE \"C\" FOR UPDATE OF x) AS r "
                + "WHERE d.message_id = r.message_id AND d.subscriber = r.subscriber")) {
            update.setArray(
                    1,
                    c.createArrayOf(
                            "text", deadlines.stream().map(Deadline::messageId).toArray()));
            update.setArray(
                    2,
                    c.createArrayOf(
                            "text", deadlines.stream().map(Deadline::subscriber).toArray()));
            // As ISO-8601 text with its Z: an array's timestamps would be read in the JVM's zone.
            update.setArray(
                    3,
                    c.createArrayOf(
                            "text",
                            deadlines.stream().map(d -> d.at().toString()).toArray()));
            update.executeUpdate();
        }
    }

    /** When the oldest entry not yet relayed was written; empty when the outbox is empty. */
    Optional<Instant> oldest(Connection c) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT MIN(created_at) FROM courier_rm_outbox");
                ResultSet rows = select.executeQuery()) {
            rows.next();
            return Optional.ofNullable(Columns.instant(rows, 1));
        }
    }

    /** Entries not yet relayed. */
    long backlog(Connection c) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*) FROM courier_rm_outbox");
                ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
