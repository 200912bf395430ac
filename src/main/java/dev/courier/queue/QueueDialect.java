package dev.courier.queue;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What differs between databases: claiming a batch of deliverable messages without two receivers ever getting the
 * same one, registering an idempotency key without aborting the caller's transaction on a conflict, and the
 * operations by lease token. On PostgreSQL the claim and the operations by lease token are the SQL API's core
 * functions ({@code courier.core_*}, migration V17), which the SQL API's own functions call too: one
 * implementation for the server, the library and SQL; Derby, which has no SQL API, runs the same statements from
 * Java.
 */
interface QueueDialect {

    /**
     * Leases up to {@code max} deliverable messages of the queue in the current transaction, fewer when their
     * payloads reach {@code maxBytes}: a message is leased only while the payloads before it stay under the budget
     * (so the first one always is). Each lease moves the message's delivery time to the lease's expiry plus
     * {@link QueueSpec#redeliveryDelay}, jittered per message. A message leased again after its lease ran out gets
     * that attempt's line in its history ({@link History#EXPIRED}), and {@link Claimed#expired} says so.
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

    /** A message to insert: {@code headers} as stored ({@link Headers#encode}, null for none), {@code key} null for none. */
    record NewMessage(String id, Instant deliverAt, String key, Payload payload, String headers) {}

    /**
     * Enqueues {@code messages} to {@code queue} in the current transaction, created at {@code now}. A message whose
     * key is bound on the queue within its window ({@link #KEY_RELEASED} says when a binding ends) is not sent: its
     * result names the original with {@code duplicate = true}; other keys are bound for {@code keyWindow}.
     *
     * @return a result per message, in order
     * @throws SQLException 23503 when the queue was dropped meanwhile
     */
    List<Sent> send(Connection connection, QueueName queue, List<NewMessage> messages, Instant now, Duration keyWindow)
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
     * Acknowledges: deletes each message whose current lease is its token ({@code ids} are the tokens' messages,
     * distinct), of {@code queue} only unless it is null. Exact whatever the driver reports for batches.
     *
     * @return empty when every token deleted its message; otherwise the first that did not, and why (the caller
     *         fails, and the deletes roll back with it)
     */
    Optional<LeaseFault.Lost> ack(Connection connection, QueueName queue, List<String> ids, List<String> tokens)
            throws SQLException;

    /**
     * Extends the lease {@code token} of message {@code id} (of {@code queue} unless null) to {@code expiry}; its
     * redelivery time moves with it, plus the backoff of {@code spec}, the message's queue.
     *
     * @return empty when renewed, else why not
     */
    Optional<LeaseFault.Lost> renew(
            Connection connection, QueueSpec spec, QueueName queue, String id, String token, Instant expiry)
            throws SQLException;

    /**
     * Ends the lease {@code token} of message {@code id} (of {@code queue} unless null) as a failed attempt,
     * recorded in its history with {@code reason} (blank: "released"; cut past 1000 characters): the message is
     * delivered again after {@code delay} (null: the backoff of {@code spec}, the message's queue), or dead when it
     * has no attempts left.
     */
    Released release(
            Connection connection,
            QueueSpec spec,
            QueueName queue,
            String id,
            String token,
            Instant now,
            Duration delay,
            String reason)
            throws SQLException;

    /** A message leased by a claim; {@code expired} when the claim found its last lease expired. */
    record Claimed(Delivery delivery, boolean expired) {}

    /** What a release did: {@code lost} (null when released) says why it could not; {@code dead} the message is. */
    record Released(LeaseFault.Lost lost, boolean dead) {}
}
