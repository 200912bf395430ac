package dev.courier.queue;

/**
 * The SQL of the transactional queue's hot path, in one place: what Courier runs, and what a raw-JDBC baseline
 * must run to be compared with it fairly. Read it to see exactly what each operation costs the database.
 */
public final class QueueSql {

    /**
     * A queue's settings and the database's clock, read together when a server has no recent copy of the
     * settings (QueueSpecs): every lease, delivery time and expiry an operation writes or compares is taken from
     * the database's clock (QueueDatabase.now reads it once a second), so servers whose clocks disagree
     * still agree on when a lease ends. Parameter: name.
     */
    public static final String SELECT_QUEUE = "SELECT name, lease_ms, max_attempts, backoff_initial_ms, "
            + "backoff_multiplier, backoff_max_ms, clock_timestamp(), grants FROM courier_queue WHERE name = ?";

    /** {@link #SELECT_QUEUE} on embedded Derby, whose clock is the server's: the time column is always null. */
    public static final String SELECT_QUEUE_DERBY = "SELECT name, lease_ms, max_attempts, backoff_initial_ms, "
            + "backoff_multiplier, backoff_max_ms, CAST(NULL AS TIMESTAMP), grants FROM courier_queue WHERE name = ?";

    /**
     * Enqueues messages ({@code courier.core_send}, V17), binding their keys. Parameters: queue, ids, delivery
     * times (ISO-8601 text), keys, payload types, payloads (bytea[]), headers, now, key window in ms. A row only for
     * each message not sent because its key is bound: its ordinal (from 1), the original's id and delivery time.
     */
    static final String SEND_POSTGRESQL = "SELECT ordinal, id, deliver_at FROM courier.core_send(?, ?, "
            + "CAST(CAST(? AS text[]) AS timestamptz[]), ?, ?, ?, ?, CAST(? AS timestamptz), "
            + "CAST(? AS bigint) * interval '1 millisecond')";

    /**
     * Enqueues one message (batched) on Derby, as {@code courier.core_send} does without a key. Parameters: id, queue, deliver_at, idempotency key, payload type, payload,
     * headers, created_at.
     */
    public static final String INSERT_MESSAGE = "INSERT INTO courier_message (id, queue, state, deliver_at, attempt, "
            + "version, idempotency_key, payload_type, payload, headers, created_at) "
            + "VALUES (?, ?, 'READY', ?, 0, 0, ?, ?, ?, ?, ?)";

    /**
     * Leases up to n deliverable messages ({@code courier.core_claim}, migration V17: one statement with
     * {@code FOR UPDATE SKIP LOCKED}, under a byte budget, recording an expired lease in the history). Parameters:
     * queue, n, byte budget, now, lease expiry, max attempts, backoff initial ms, multiplier, max ms, token nonce.
     * Columns: id, attempt, lease_token, lease_expires_at, payload_type, payload, headers, created_at, expired.
     */
    public static final String CLAIM_POSTGRESQL = "SELECT * FROM courier.core_claim(?, ?, ?, CAST(? AS timestamptz), "
            + "CAST(? AS timestamptz), ?, ?, ?, ?, ?)";

    /**
     * Acknowledges a batch ({@code courier.core_ack}): deletes the messages whose current lease is one of the
     * tokens. Parameters: queue (null: any), ids (text[]), tokens (text[]). One row: the first message that was
     * not deleted and its {@link LeaseFault}, both null when each token deleted its message.
     */
    public static final String ACK_POSTGRESQL = "SELECT message_id, fault FROM courier.core_ack(?, ?, ?)";

    /**
     * Renews a lease ({@code courier.core_renew}). Parameters: queue (null: any), id, token, new expiry. Column: the
     * {@link LeaseFault}, null when renewed.
     */
    static final String RENEW_POSTGRESQL = "SELECT courier.core_renew(?, ?, ?, CAST(? AS timestamptz))";

    /**
     * Releases a lease ({@code courier.core_release}). Parameters: queue (null: any), id, token, now, delay in ms
     * (null: the backoff), reason. Columns: fault (null when done), dead.
     */
    static final String RELEASE_POSTGRESQL = "SELECT fault, dead FROM courier.core_release(?, ?, ?, "
            + "CAST(? AS timestamptz), CAST(? AS bigint) * interval '1 millisecond', ?)";

    /**
     * Has the rest of the transaction plan on indexes, on PostgreSQL, before a claim, an acknowledgement, a renewal
     * or a release. A queue's table looks nearly empty to the planner whenever consumers keep up, so without it
     * those statements scan the whole table, and between two vacuums that table holds every dead version the
     * churn left (seen: 1 042 buffers per claim, 362 per acknowledgement; 48 and 6 on the indexes). A statement
     * with no index to use still scans, priced at 10^10, a price that would buy a just-in-time compilation on
     * every run: hence {@code jit} off too. Local to the transaction, so nothing outside it plans differently.
     */
    public static final String PLAN_ON_INDEXES_POSTGRESQL =
            "SELECT set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)";

    /** Acknowledges: deletes the message if the token is its current lease; exactly one row or none. Parameters: id, token. */
    public static final String ACK = "DELETE FROM courier_message WHERE id = ? AND lease_token = ?";

    private QueueSql() {}
}
