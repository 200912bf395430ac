package dev.courier.queue;

import dev.courier.platform.Backoff;

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
     * Enqueues one message (batched). Parameters: id, queue, deliver_at, idempotency key, payload type, payload,
     * headers, created_at.
     */
    public static final String INSERT_MESSAGE = "INSERT INTO courier_message (id, queue, state, deliver_at, attempt, "
            + "version, idempotency_key, payload_type, payload, headers, created_at) "
            + "VALUES (?, ?, 'READY', ?, 0, 0, ?, ?, ?, ?, ?)";

    /**
     * Leases up to n deliverable messages in one statement, skipping rows other receivers hold. Parameters: queue,
     * now, max attempts, n, token nonce, lease expiry, lease expiry again, redelivery delays before jitter
     * (float8[] seconds, index k = after delivery k fails; each row draws its jitter into [50 %, 100 %] of it, as
     * {@link Backoff#delayAfter} does), byte budget. The lease moves deliver_at to the lease expiry plus the
     * backoff for this delivery's failure, so the message stays invisible while leased and reappears by itself,
     * backoff included, if the lease runs out. Only the messages whose payloads before them, in delivery order,
     * stay under the budget are leased (the first always is): the rest stay deliverable, and locked only until this
     * transaction ends. The sum is taken a step after the lock, as PostgreSQL allows no window with FOR UPDATE.
     */
    public static final String CLAIM_POSTGRESQL = """
            WITH picked AS (
                SELECT id, deliver_at, lease_expires_at AS previous_expiry, octet_length(payload) AS size
                FROM courier_message
                WHERE queue = ? AND state = 'READY' AND deliver_at <= ? AND attempt < ?
                ORDER BY deliver_at
                LIMIT ?
                FOR UPDATE SKIP LOCKED),
            budgeted AS (
                SELECT id, previous_expiry,
                       SUM(size) OVER (ORDER BY deliver_at, id ROWS UNBOUNDED PRECEDING) - size AS before
                FROM picked)
            UPDATE courier_message m
            SET attempt = m.attempt + 1,
                lease_token = m.id || '.' || ?,
                lease_expires_at = ?,
                deliver_at = CAST(? AS timestamptz)
                             + make_interval(secs => (?::float8[])[m.attempt + 1] * (0.5 + 0.5 * random())),
                version = m.version + 1
            FROM budgeted
            WHERE m.id = budgeted.id AND budgeted.before < ?
            RETURNING m.id, m.attempt, m.lease_token, m.lease_expires_at, m.payload_type, m.payload, m.headers,
                      m.deliver_at, budgeted.previous_expiry""";

    /**
     * Acknowledges a batch on PostgreSQL: deletes the messages whose current lease is one of the tokens. A token
     * names its message ({@link LeaseToken}), so matching any of the tokens is matching each pair; the ids let the
     * primary key find the rows. Parameters: ids (text[]), tokens (text[]); callers append the queue's condition
     * and {@code RETURNING m.id}.
     */
    public static final String ACK_ALL_POSTGRESQL = """
            DELETE FROM courier_message m
            WHERE m.id = ANY (CAST(? AS text[])) AND m.lease_token = ANY (CAST(? AS text[]))""";

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
