package dev.courier.queue;

import dev.courier.platform.Columns;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The two operations whose SQL differs between databases: claiming a batch of deliverable messages without two
 * receivers ever getting the same one, and registering an idempotency key without aborting the caller's
 * transaction on a conflict. Everything else in the queue is portable SQL.
 */
interface QueueDialect {

    /**
     * Leases up to {@code max} deliverable messages of the queue in the current transaction, fewer when their
     * payloads reach {@code maxBytes}: a message is leased only while the payloads before it stay under the budget
     * (so the first one always is). Each lease moves the message's delivery time to the lease's expiry plus
     * {@link QueueSpec#redeliveryDelay}, jittered per message.
     */
    List<Claimed> claim(Connection connection, QueueSpec queue, int max, long maxBytes, Duration lease, Instant now)
            throws SQLException;

    /**
     * Has the rest of the current transaction plan the queue's statements on its indexes
     * ({@link QueueSql#PLAN_ON_INDEXES_POSTGRESQL}); Derby's plans need nothing.
     */
    default void planOnIndexes(Connection connection) throws SQLException {}

    /**
     * Whether a key's binding may be dropped or taken over: its window is over and the message it names is gone
     * (acked or purged). A message scheduled or retrying past the window keeps its key, so it cannot be sent twice.
     * One parameter: now.
     */
    String KEY_RELEASED = "courier_idempotency_key.expires_at <= ? AND NOT EXISTS "
            + "(SELECT 1 FROM courier_message m WHERE m.id = courier_idempotency_key.message_id)";

    /**
     * Binds {@code key} to the new message unless a live binding exists.
     *
     * @return the existing binding when the key is taken within its window, else empty (the new binding is written)
     */
    Optional<Sent> registerKey(
            Connection connection,
            QueueName queue,
            String key,
            String messageId,
            Instant deliverAt,
            Instant now,
            Instant expiresAt)
            throws SQLException;

    /**
     * What ends a SELECT that picks rows to change, so that it neither waits for nor takes rows another
     * transaction holds: {@code FOR UPDATE SKIP LOCKED} on PostgreSQL; on Derby, which has no such clause, a
     * read-uncommitted scan whose rows are then changed by compare-and-swap on their version.
     */
    String skipLocked();

    /**
     * {@link QueueSql#SELECT_QUEUE} for this database: a queue's settings, and in the seventh column the
     * database's clock, or NULL where the server's clock is the database's (embedded Derby, in this JVM).
     */
    String selectQueue();

    /**
     * Deletes each message whose current lease is its token, of {@code queue} only unless it is null; ids are
     * distinct. Exact whatever the driver reports for batches. @return the ids deleted
     */
    java.util.Set<String> deleteLeased(Connection connection, QueueName queue, List<String> ids, List<String> tokens)
            throws SQLException;

    /** The message {@code key} is bound to, after a registration found it taken. */
    default Optional<Sent> boundKey(Connection connection, QueueName queue, String key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT message_id, deliver_at " + "FROM courier_idempotency_key WHERE queue = ? AND idem_key = ?")) {
            select.setString(1, queue.value());
            select.setString(2, key);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw new IllegalStateException("idempotency key " + key + " conflicted but is not bound");
                }
                return Optional.of(new Sent(rows.getString(1), Columns.instant(rows, 2), true));
            }
        }
    }

    /** A message leased by a claim; {@code previousExpiry} is set when the claim found an expired lease. */
    record Claimed(Delivery delivery, Instant previousExpiry) {}
}
