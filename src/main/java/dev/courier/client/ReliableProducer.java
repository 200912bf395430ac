package dev.courier.client;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The upstream side of the reliable message protocol, for a Jakarta EE application: sends a message exactly when
 * the caller's JTA transaction commits.
 *
 * <p>{@link #send} prepares the message with Courier, then writes a <em>barrier row</em> (the message id, COMMITTED)
 * in the application's own database <em>in the caller's transaction</em>. After that transaction completes it
 * confirms the message (commit) or cancels it (rollback). If the confirm or cancel is lost — the process dies, the
 * network fails — Courier checks back, and {@link BarrierCheckBack} answers from the barrier table: the barrier row
 * exists exactly when the transaction committed. A transaction whose outcome the transaction manager does not know
 * ({@code STATUS_UNKNOWN}: the database went away during the commit) is neither confirmed nor cancelled: it is left
 * to the check-back, which reads the barrier row where the commit landed or not. So the message is delivered if and only if the transaction
 * committed, however the calls after it fail.
 *
 * <p><b>What waits on Courier.</b> {@code send} makes one call (the prepare) inside the caller's transaction. The
 * confirm or cancel after it is <em>asynchronous</em> by default: handed to a managed executor (the container's
 * {@code java:comp/DefaultManagedExecutorService}, or the one given to {@link #confirmingOn}), so the business
 * thread returns as soon as its own transaction has committed. Confirms and cancels go in batches: while one call
 * is on its way, those that come meanwhile wait and go together in the next ({@code POST /api/messages/settles},
 * one transaction in Courier), so a busy producer pays far less than a round trip per message. At most
 * {@code maxInFlight} wait or are on their way; past that, and whenever the executor refuses, the message is left
 * to Courier's check-back, which settles it from the barrier row after the message's check-back time (the same
 * path as a lost confirm). A caller that
 * wants the confirm answered before its method returns uses {@link #confirmingSynchronously()}.
 *
 * <p>If the prepare fails, {@code send} throws {@link CourierException} and the caller's transaction should roll
 * back (an unchecked exception out of an EJB does that). Needs the tables of {@link ClientTables}.
 *
 * <p>Call {@code send} before the transaction's other database work: the prepare is a network round trip, and
 * work done before it holds its pooled connection and its row locks through that trip. When Courier shares the
 * connection pool (the same server and database), callers that already hold connections can starve the prepares
 * they wait for of one — the lab saw 64 clients on a pool of 50 stall for the pool's 10 s timeout.
 */
public final class ReliableProducer {

    private static final Logger LOG = Logger.getLogger(ReliableProducer.class.getName());

    private final CourierApi courier;
    private final String producer;
    private final DataSource dataSource;
    private final TransactionSynchronizationRegistry transactions;
    private final Clock clock;
    /** Where settle calls run; null: on the thread that completed the transaction (synchronous). */
    private final Executor executor;
    /** The batches of settles on {@link #executor}; null when synchronous. */
    private final AfterCompletionBatches<CourierApi.Settle> settles;

    private final int maxInFlight;

    /** Confirms and cancels per call at most, when asynchronous. */
    public static final int MAX_BATCH = 500;

    /** Settle calls in flight at most, by default. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;

    /**
     * A producer that confirms asynchronously on the container's default managed executor
     * ({@code java:comp/DefaultManagedExecutorService}), at most {@value #DEFAULT_MAX_IN_FLIGHT} confirms and cancels waiting.
     *
     * @param producer the name this application registered with Courier
     * @param dataSource the application's own (JTA) datasource, which holds {@code courier_barrier}
     * Outside a container, where there is none, it confirms synchronously.
     */
    public ReliableProducer(
            CourierApi courier,
            String producer,
            DataSource dataSource,
            TransactionSynchronizationRegistry transactions) {
        this(courier, producer, dataSource, transactions, DefaultExecutor.lookup("confirm"), DEFAULT_MAX_IN_FLIGHT);
    }

    /**
     * A producer that confirms asynchronously on {@code executor} (a {@code ManagedExecutorService} in a
     * container), at most {@code maxInFlight} calls running or waiting; null {@code executor}: synchronously.
     */
    public ReliableProducer(
            CourierApi courier,
            String producer,
            DataSource dataSource,
            TransactionSynchronizationRegistry transactions,
            Executor executor,
            int maxInFlight) {
        this.courier = Objects.requireNonNull(courier, "courier is required");
        this.producer = Objects.requireNonNull(producer, "producer is required");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource is required");
        this.transactions = Objects.requireNonNull(transactions, "transactions is required");
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1");
        }
        this.clock = Clock.systemUTC();
        this.executor = executor;
        this.maxInFlight = maxInFlight;
        this.settles =
                executor == null ? null : AfterCompletionBatches.settles(courier, executor, MAX_BATCH, maxInFlight);
    }

    /** This producer confirming on {@code executor}, at most {@code maxInFlight} calls in flight. */
    public ReliableProducer confirmingOn(Executor executor, int maxInFlight) {
        return new ReliableProducer(
                courier,
                producer,
                dataSource,
                transactions,
                Objects.requireNonNull(executor, "executor is required"),
                maxInFlight);
    }

    /**
     * This producer confirming (or cancelling) on the thread that completed the transaction, before the caller's
     * method returns: the confirm's answer is in before the caller goes on, at the price of a round trip per message.
     */
    public ReliableProducer confirmingSynchronously() {
        return new ReliableProducer(courier, producer, dataSource, transactions, null, maxInFlight);
    }

    /** Whether confirms and cancels run on an executor, not on the caller's thread. */
    public boolean asynchronous() {
        return executor != null;
    }

    /** Confirms and cancels now waiting or on their way (0 when synchronous). */
    public int inFlight() {
        return settles == null ? 0 : settles.waiting();
    }

    /** {@link #send(String, String, Map, Duration)} without headers, with Courier's default check-back time. */
    public String send(String topic, String payloadJson) {
        return send(topic, payloadJson, Map.of(), null);
    }

    /**
     * Sends {@code payloadJson} to {@code topic} if and only if the current transaction commits.
     *
     * @return the message id
     * @throws IllegalStateException when no transaction is active
     * @throws CourierException when Courier refused or did not answer the prepare
     */
    public String send(String topic, String payloadJson, Map<String, String> headers, Duration checkBackAfter) {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new IllegalStateException("ReliableProducer.send needs an active JTA transaction");
        }
        String id = courier.prepare(topic, producer, payloadJson, headers, checkBackAfter);
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO courier_barrier (message_id, outcome, created_at) VALUES (?, 'COMMITTED', ?)")) {
            insert.setString(1, id);
            insert.setTimestamp(2, Timestamp.from(clock.instant()));
            insert.executeUpdate();
        } catch (SQLException e) {
            // A check-back already marked it rolled back (or the database failed): this transaction must not commit.
            transactions.setRollbackOnly();
            throw new IllegalStateException("cannot write the barrier row of message " + id, e);
        }
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // Nothing before: the barrier row commits or rolls back with the transaction.
            }

            @Override
            public void afterCompletion(int status) {
                Completion completion = Completion.of(status);
                if (completion == Completion.UNKNOWN) {
                    // A cancel would be final, and the commit may have happened: the check-back reads the barrier.
                    LOG.warning("the transaction of message " + id + " ended with status " + status
                            + " (outcome unknown): neither confirmed nor cancelled; Courier's check-back settles it");
                    return;
                }
                boolean committed = completion == Completion.COMMITTED;
                if (settles == null) {
                    settle(id, committed);
                } else {
                    settles.add(new CourierApi.Settle(id, committed));
                }
            }
        });
        return id;
    }

    private void settle(String id, boolean committed) {
        try {
            if (committed) {
                courier.confirm(id);
            } else {
                courier.cancel(id);
            }
        } catch (RuntimeException e) {
            // Courier's check-back settles it from the barrier table.
            LOG.log(
                    Level.WARNING,
                    (committed ? "confirm" : "cancel") + " of message " + id
                            + " failed; Courier's check-back will settle it",
                    e);
        }
    }
}
