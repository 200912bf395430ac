package dev.courier.reliable;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The set-based SQL of a batch of settles or reports, on PostgreSQL: one statement per step for the whole batch
 * (its ids travel as arrays, so the statement text is the same for every batch size), where the one-at-a-time
 * steps of {@link Protocol} take a statement per message and step. Every method runs in the caller's transaction.
 */
@ApplicationScoped
class BatchStore {

    /** A delivery's key: one subscriber's ledger row of one message. */
    record Key(String messageId, String subscriber) {}

    /**
     * Takes the row locks of {@code ids} in id order, the order in which one-at-a-time calls take them, so a batch
     * and a single call (or two batches) never deadlock. (Every order here is by code point, {@code COLLATE "C"}:
     * Java's order of names and ids, whatever the database's collation.) @return the locked rows by id; an
     * unknown id is absent
     */
    Map<String, MessageStore.MessageRow> lock(Connection c, Collection<String> ids) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT " + MessageStore.MESSAGE_COLUMNS
                + " FROM courier_rm_message WHERE id = ANY(?) ORDER BY id COLLATE \"C\" FOR UPDATE")) {
            select.setArray(1, texts(c, ids));
            Map<String, MessageStore.MessageRow> locked = new LinkedHashMap<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    MessageStore.MessageRow m = MessageStore.messageRow(rows);
                    locked.put(m.id(), m);
                }
            }
            return locked;
        }
    }

    /** Moves locked {@code PENDING} messages to {@code SENT}, with the payload and headers they were prepared with. */
    void send(Connection c, Collection<String> ids, Instant now) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE courier_rm_message SET state = 'SENT', "
                        + "next_check_at = NULL, updated_at = ?, finished_at = NULL, version = version + 1 WHERE id = ANY(?)")) {
            update.setTimestamp(1, Columns.timestamp(now), Columns.utc());
            update.setArray(2, texts(c, ids));
            expect(ids.size(), update.executeUpdate(), "sent");
        }
    }

    /**
     * The deliveries of {@code keys}, by key, locked in key order (the relay marks deliveries in that order too,
     * and one-at-a-time reports take them in it); a key without a ledger row is absent.
     */
    Map<Key, LedgerStore.DeliveryRow> lockDeliveries(Connection c, List<Key> keys) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT " + LedgerStore.DELIVERY_COLUMNS
                + " FROM courier_rm_delivery WHERE (message_id, subscriber) IN "
                + "(SELECT * FROM unnest(?::text[], ?::text[])) ORDER BY message_id COLLATE \"C\", subscriber COLLATE \"C\" "
                + "FOR UPDATE")) {
            setKeys(c, select, 1, keys);
            Map<Key, LedgerStore.DeliveryRow> found = new LinkedHashMap<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    LedgerStore.DeliveryRow d = LedgerStore.deliveryRow(rows);
                    found.put(new Key(d.messageId(), d.subscriber()), d);
                }
            }
            return found;
        }
    }

    /** Moves locked {@code DELIVERED} deliveries to {@code CONSUMED}. */
    void consume(Connection c, List<Key> keys, Instant now) throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_delivery d SET state = 'CONSUMED', "
                + "next_attempt_at = NULL, consumed_at = ?, version = d.version + 1 "
                + "FROM unnest(?::text[], ?::text[]) AS r(message_id, subscriber) "
                + "WHERE d.message_id = r.message_id AND d.subscriber = r.subscriber AND d.state = 'DELIVERED'")) {
            update.setTimestamp(1, Columns.timestamp(now), Columns.utc());
            setKeys(c, update, 2, keys);
            expect(keys.size(), update.executeUpdate(), "consumed");
        }
    }

    /**
     * Completes those of the locked {@code SENT} messages {@code ids} that no delivery waits on any more.
     * @return the ids it completed
     */
    Set<String> complete(Connection c, Collection<String> ids, Instant now) throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_message m SET state = 'COMPLETED', "
                + "next_check_at = NULL, updated_at = ?, finished_at = ?, version = m.version + 1 "
                + "WHERE m.id = ANY(?) AND m.state = 'SENT' AND NOT EXISTS (SELECT 1 FROM courier_rm_delivery d "
                + "WHERE d.message_id = m.id AND d.state <> 'CONSUMED') RETURNING m.id")) {
            update.setTimestamp(1, Columns.timestamp(now), Columns.utc());
            update.setTimestamp(2, Columns.timestamp(now), Columns.utc());
            update.setArray(3, texts(c, ids));
            Set<String> completed = new HashSet<>();
            try (ResultSet rows = update.executeQuery()) {
                while (rows.next()) {
                    completed.add(rows.getString(1));
                }
            }
            return completed;
        }
    }

    private static Array texts(Connection c, Collection<String> values) throws SQLException {
        return c.createArrayOf("text", values.toArray());
    }

    private static void setKeys(Connection c, PreparedStatement statement, int first, List<Key> keys)
            throws SQLException {
        statement.setArray(first, texts(c, keys.stream().map(Key::messageId).toList()));
        statement.setArray(
                first + 1, texts(c, keys.stream().map(Key::subscriber).toList()));
    }

    /** The rows were locked and checked first: a different count is a bug, not a race to answer. */
    private static void expect(int rows, int changed, String what) {
        if (rows != changed) {
            throw new IllegalStateException(changed + " of " + rows + " locked rows " + what);
        }
    }
}
