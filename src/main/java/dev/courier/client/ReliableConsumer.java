package dev.courier.client;

import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.transaction.HeuristicMixedException;
import jakarta.transaction.HeuristicRollbackException;
import jakarta.transaction.NotSupportedException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The downstream side of the reliable message protocol, for an MDB or a queue worker: processes each message's
 * effect once, however often the message arrives.
 *
 * <p>{@link #consume} runs in the caller's JTA transaction: it records the message id for this subscriber in the
 * inbox table of the application's own database and runs the handler's business writes in that same transaction,
 * so either both commit or neither. A message already in the inbox is not handled again. After the transaction
 * commits it reports the message consumed to Courier (also for a duplicate: the earlier report may have been
 * lost); after a rollback it reports the failure, so Courier redelivers after its backoff. A lost report is
 * harmless: Courier redelivers when the delivery timeout passes, the inbox skips the effect, and the report is
 * made again. Needs the tables of {@link ClientTables}.
 *
 * <p><b>Reports are batched</b> by default: they are made after the transaction completed, on the container's
 * default managed executor (or the one given to {@link #reportingOn}), many in one call while a call is on its way,
 * so a busy consumer pays no round trip to Courier per message. {@link #reportingSynchronously()} makes each report
 * on the thread that completed the transaction, before {@code onMessage} returns.
 *
 * <p><b>In a message-driven bean</b>, two modes. The default needs no two-phase commit: a bean-managed MDB
 * ({@code @TransactionManagement(BEAN)}) calls {@link #consumeInOwnTransaction}, so the inbox row and the business
 * writes commit in one local transaction of the application's database and the broker's acknowledgement comes
 * after {@code onMessage} returns; a crash between the two redelivers a message the inbox has already seen:
 * at-least-once on the wire, once in effect. A failed handler rolls back, is reported failed, and its copy is
 * acknowledged: Courier sends the next copy after its backoff. The other mode is the MDB's container-managed XA
 * transaction ({@code REQUIRED}) around {@link #consume}: the broker's receive and the database's writes commit
 * or roll back together, a failure is redelivered by the broker (and reported failed, so Courier's own copy
 * follows after its backoff; the inbox absorbs whichever comes second). The MDB's activation spec names the
 * subscriber's queue {@code topic.subscriber} as a {@code jakarta.jms.Queue}; register the subscriber before the
 * MDB starts.
 */
public final class ReliableConsumer {

    /** The business effect of one message, run in the consumer's transaction. */
    @FunctionalInterface
    public interface Handler {
        /** @param payloadJson the message's JSON payload */
        void handle(String messageId, String payloadJson) throws Exception;
    }

    private static final Logger LOG = Logger.getLogger(ReliableConsumer.class.getName());
    private static final String MESSAGE_ID = "courierMessageId";
    private final CourierApi courier;
    private final String subscriber;
    private final DataSource dataSource;
    private final TransactionSynchronizationRegistry transactions;
    /** A {@code Tracer}, or null: typed Object so that the class loads where OpenTelemetry's API is absent. */
    private final Object tracer;

    private final Clock clock = Clock.systemUTC();
    private volatile Boolean postgres;
    /** Batches reports on an executor; null: each report on the completing thread. */
    private final AfterCompletionBatches<CourierApi.Report> reporter;

    /** Reports per call at most, and waiting at most, when batched. */
    public static final int MAX_BATCH = 500;

    public static final int MAX_WAITING = 10_000;

    /**
     * A consumer that batches its reports on the container's default managed executor
     * ({@code java:comp/DefaultManagedExecutorService}); outside a container, where there is none, it reports
     * synchronously.
     *
     * @param subscriber this consumer's subscriber name, as registered on the topic
     */
    public ReliableConsumer(
            CourierApi courier,
            String subscriber,
            DataSource dataSource,
            TransactionSynchronizationRegistry transactions) {
        this(null, courier, subscriber, dataSource, transactions);
    }

    /**
     * A consumer that traces: each {@link #consume} is a {@code CONSUMER} span ({@code process <topic>}), child of
     * the publish span whose W3C context the message carries in its {@code traceparent} property, and current
     * while the handler runs, so the handler's own spans join the message's trace.
     *
     * @param tracer an OpenTelemetry {@code io.opentelemetry.api.trace.Tracer}, e.g. the one MicroProfile Telemetry
     *        injects ({@code @Inject Tracer}); typed {@code Object} so that this class loads, and the consumer
     *        without a tracer works, where OpenTelemetry's API is absent
     * @throws IllegalArgumentException when {@code tracer} is no {@code Tracer}
     */
    public ReliableConsumer(
            CourierApi courier,
            String subscriber,
            DataSource dataSource,
            TransactionSynchronizationRegistry transactions,
            Object tracer) {
        this(ProcessSpan.tracer(tracer), courier, subscriber, dataSource, transactions);
    }

    private ReliableConsumer(
            Object tracer,
            CourierApi courier,
            String subscriber,
            DataSource dataSource,
            TransactionSynchronizationRegistry transactions) {
        this(
                tracer,
                courier,
                subscriber,
                dataSource,
                transactions,
                reporter(courier, DefaultExecutor.lookup("report")));
    }

    private static AfterCompletionBatches<CourierApi.Report> reporter(
            CourierApi courier, java.util.concurrent.Executor executor) {
        return executor == null ? null : AfterCompletionBatches.reports(courier, executor, MAX_BATCH, MAX_WAITING);
    }

    private ReliableConsumer(
            Object tracer,
            CourierApi courier,
            String subscriber,
            DataSource dataSource,
            TransactionSynchronizationRegistry transactions,
            AfterCompletionBatches<CourierApi.Report> reporter) {
        this.tracer = tracer;
        this.courier = Objects.requireNonNull(courier, "courier is required");
        this.subscriber = Objects.requireNonNull(subscriber, "subscriber is required");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource is required");
        this.transactions = Objects.requireNonNull(transactions, "transactions is required");
        this.reporter = reporter;
    }

    /** This consumer batching its reports on {@code executor} (a {@code ManagedExecutorService} in a container). */
    public ReliableConsumer reportingOn(java.util.concurrent.Executor executor) {
        return new ReliableConsumer(
                tracer,
                courier,
                subscriber,
                dataSource,
                transactions,
                AfterCompletionBatches.reports(
                        courier, Objects.requireNonNull(executor, "executor is required"), MAX_BATCH, MAX_WAITING));
    }

    /** This consumer making each report on the thread that completed the transaction, one call per report. */
    public ReliableConsumer reportingSynchronously() {
        return new ReliableConsumer(tracer, courier, subscriber, dataSource, transactions, null);
    }

    /** Reports waiting to be sent or on their way (0 when reporting synchronously). */
    public int reportsWaiting() {
        return reporter == null ? 0 : reporter.waiting();
    }

    /**
     * Handles {@code message} once: in the current transaction unless its id is already in the inbox.
     *
     * @return true when the handler ran, false for a duplicate
     * @throws IllegalArgumentException for a message Courier did not send (no {@code courierMessageId}, or one that
     *         is no Courier message id)
     * @throws Exception what the handler threw; the caller's transaction must then roll back (rethrow it)
     */
    public boolean consume(Message message, Handler handler) throws Exception {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new IllegalStateException("ReliableConsumer.consume needs an active JTA transaction");
        }
        String id = MessageIds.require(message.getStringProperty(MESSAGE_ID), MESSAGE_ID + " property");
        String[] failure = new String[1];
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // The inbox row commits or rolls back with the business writes.
            }

            @Override
            public void afterCompletion(int status) {
                Completion completion = Completion.of(status);
                if (completion == Completion.UNKNOWN) {
                    // Neither report is true for sure: the redelivery after the timeout meets the inbox row, or not.
                    LOG.warning("the consumer's transaction for message " + id + " ended with status " + status
                            + " (outcome unknown): not reported; Courier redelivers it after the delivery timeout");
                    return;
                }
                report(id, completion == Completion.COMMITTED, failure[0]);
            }
        });
        AutoCloseable span = tracer == null ? null : ProcessSpan.start(tracer, message, id, subscriber);
        try {
            if (seen(id)) {
                if (span != null) { // ProcessSpan is loaded only when tracing: it needs OpenTelemetry's API
                    ProcessSpan.duplicate(span);
                }
                return false;
            }
            handler.handle(id, payload(message));
            return true;
        } catch (Exception | Error e) {
            failure[0] = e.toString();
            if (span != null) {
                ProcessSpan.failed(span, e);
            }
            throw e;
        } finally {
            if (span != null) {
                span.close();
            }
        }
    }

    /**
     * Handles {@code message} once in a local transaction of its own, begun and ended on {@code transaction}: for a
     * bean-managed MDB, or any thread outside a transaction. The inbox row and the handler's writes commit together
     * or not at all; the report to Courier follows the outcome. A handler's failure is not thrown on: the
     * transaction rolls back, the failure is logged and reported, and the caller acknowledges the copy as usual,
     * since Courier redelivers a failed delivery after its backoff (a broker redelivery on top would be a second
     * copy racing the first).
     *
     * @return true when the handler's writes committed now; false for a duplicate or a failure
     * @throws IllegalArgumentException for a message Courier did not send (no {@code courierMessageId}, or one that
     *         is no Courier message id)
     * @throws IllegalStateException when a transaction is already active on the thread, or the transaction
     *         manager fails to begin one
     */
    public boolean consumeInOwnTransaction(UserTransaction transaction, Message message, Handler handler)
            throws JMSException {
        MessageIds.require(message.getStringProperty(MESSAGE_ID), MESSAGE_ID + " property");
        try {
            transaction.begin();
        } catch (NotSupportedException | SystemException e) {
            throw new IllegalStateException(
                    "ReliableConsumer.consumeInOwnTransaction needs no transaction on the"
                            + " thread (a bean-managed MDB, or NOT_SUPPORTED): " + e,
                    e);
        }
        boolean ran;
        try {
            ran = consume(message, handler);
        } catch (Exception | Error e) {
            rollBack(transaction, message, e);
            return false;
        }
        try {
            transaction.commit();
            return ran;
        } catch (RollbackException | HeuristicMixedException | HeuristicRollbackException | SystemException e) {
            // The synchronization reported the outcome; nothing committed, or the manager says what did.
            LOG.log(
                    Level.WARNING,
                    "the consumer's transaction for message " + message.getStringProperty(MESSAGE_ID)
                            + " did not commit; Courier redelivers it",
                    e);
            return false;
        }
    }

    private static void rollBack(UserTransaction transaction, Message message, Throwable cause) throws JMSException {
        LOG.log(
                Level.INFO,
                "handling message " + message.getStringProperty(MESSAGE_ID)
                        + " failed; rolled back, Courier redelivers it after its backoff: " + cause);
        try {
            transaction.rollback();
        } catch (SystemException | IllegalStateException e) {
            LOG.log(Level.WARNING, "rolling back the consumer's transaction failed", e);
        }
    }

    private boolean seen(String id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            if (postgres(c)) {
                // One statement: a key already there (or committed meanwhile by a concurrent copy) inserts nothing.
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_inbox (message_id, subscriber, "
                        + "received_at) VALUES (?, ?, ?) ON CONFLICT (message_id, subscriber) DO NOTHING")) {
                    bind(insert, id);
                    return insert.executeUpdate() == 0;
                }
            }
            try (PreparedStatement select =
                    c.prepareStatement("SELECT 1 FROM courier_inbox WHERE message_id = ? AND subscriber = ?")) {
                select.setString(1, id);
                select.setString(2, subscriber);
                try (ResultSet rows = select.executeQuery()) {
                    if (rows.next()) {
                        return true;
                    }
                }
            }
            // A concurrent copy of the same message waits here on the key, then fails: its transaction rolls back.
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO courier_inbox (message_id, subscriber, received_at) VALUES (?, ?, ?)")) {
                bind(insert, id);
                insert.executeUpdate();
            }
            return false;
        }
    }

    private void bind(PreparedStatement insert, String id) throws SQLException {
        insert.setString(1, id);
        insert.setString(2, subscriber);
        insert.setTimestamp(3, Timestamp.from(clock.instant()));
    }

    /** Whether the inbox is in PostgreSQL (read once: a consumer's datasource does not change its database). */
    private boolean postgres(Connection c) throws SQLException {
        Boolean known = postgres;
        if (known == null) {
            postgres = known = c.getMetaData()
                    .getDatabaseProductName()
                    .toLowerCase(java.util.Locale.ROOT)
                    .contains("postgres");
        }
        return known;
    }

    private static String payload(Message message) throws JMSException {
        if (message instanceof TextMessage text) {
            return text.getText();
        }
        return message.getBody(String.class);
    }

    private void report(String id, boolean committed, String failure) {
        if (reporter != null) {
            reporter.add(new CourierApi.Report(
                    id,
                    subscriber,
                    committed ? null : failure == null ? "the consumer's transaction rolled back" : failure));
            return;
        }
        try {
            if (committed) {
                courier.consumed(id, subscriber);
            } else {
                courier.failed(id, subscriber, failure == null ? "the consumer's transaction rolled back" : failure);
            }
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "reporting message " + id + (committed ? " consumed" : " failed")
                            + " to Courier failed; Courier redelivers it after the delivery timeout",
                    e);
        }
    }
}
