package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import dev.courier.platform.Dialect;
import dev.courier.platform.FaultInjection;
import dev.courier.platform.InjectedFault;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * One batch of the {@link Relay}: publish in a local broker transaction, then mark in a local database transaction.
 * An EJB so that every batch is a unit of work of its own: its connections go back to their pools when it ends,
 * and a connection the broker or the database broke is not handed to the next batch (on the relay's own thread
 * one local transaction containment would last as long as the thread, and share its first connections for ever).
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RelayBatches {

    private static final Logger LOG = Logger.getLogger(RelayBatches.class.getName());

    /** Fault point: a batch is taken, nothing is published yet. */
    static final String BEFORE_PUBLISH = "reliable.relay.before-publish";
    /** Fault point: the broker committed the batch, the database has not marked it relayed. */
    static final String AFTER_BROKER_COMMIT = "reliable.relay.after-broker-commit";

    @Resource(lookup = "jms/courierRelay")
    private ConnectionFactory broker;

    @Inject
    private ReliableDatabase database;

    @Inject
    private OutboxStore outbox;

    @Inject
    private Publisher publisher;

    @Inject
    private ReliableSettings settings;

    @Inject
    private FaultInjection faults;

    @Inject
    private DatabaseClock clock;

    /** Fault point: the database refuses the mark as a deadlock's victim would. */
    static final String MARK_REFUSED = "reliable.relay.mark-refused";

    /** Fault point: a mark the database refused is about to be tried again. */
    static final String MARK_RETRY = "reliable.relay.mark-retry";

    /** How often a batch's mark is tried when the database refuses it as a transaction it rolled back. */
    private static final int MARK_ATTEMPTS = 3;

    /** The database or the broker failed a batch: nothing was marked, its entries stay in the outbox. */
    public static final class Failure extends Exception {
        Failure(Exception cause) {
            super(cause.toString(), cause);
        }
    }

    /**
     * Relays one batch. @return whether more entries may wait (a full claim, or one cut to its bytes)
     * @throws Failure when the database or the broker failed (a checked exception: the container passes it on as
     *         it is, with no incident report for what is an outage, not a bug)
     */
    public boolean publish() throws Failure {
        try {
            return relay();
        } catch (SQLException | RuntimeException e) {
            throw new Failure(e);
        }
    }

    /**
     * Marks a batch the broker has committed, and commits. A mark the database rolled back (a deadlock's victim,
     * Derby's lock wait cut short: SQLSTATE class 40) is tried again, up to three times in all, from a savepoint
     * taken before it, so the batch's claim is kept (where the database rolled back the whole transaction, Derby's
     * victims, from the transaction's start): the mark is idempotent (it deletes the entries by id and starts only deadlines not
     * yet started), and failing it would publish the whole batch again. Any other failure (a broken connection)
     * is the relay's: the entries stay and go out again.
     */
    private void markRelayed(
            Connection c, Dialect dialect, List<OutboxStore.Entry> batch, Map<String, List<OutboxStore.Target>> targets)
            throws SQLException {
        for (int attempt = 1; ; attempt++) {
            // Back to here after a refusal, not to the transaction's start: the claim's row locks stay ours, so no
            // other relay takes the batch and publishes it again while this one retries its mark.
            Savepoint beforeMark = c.setSavepoint();
            try {
                refusedByTest();
                outbox.relayed(c, dialect, batch, targets, clock.instant());
                c.commit();
                return;
            } catch (SQLException e) {
                if (attempt == MARK_ATTEMPTS || !rolledBack(e)) {
                    throw e;
                }
                try {
                    c.rollback(beforeMark);
                } catch (SQLException whole) {
                    c.rollback(); // the database rolled back the whole transaction (Derby's victims): claim again
                }
                faults.checkpoint(MARK_RETRY);
            }
        }
    }

    private void publishOneByOne(
            Session session,
            MessageProducer producer,
            List<OutboxStore.Entry> batch,
            Map<String, List<OutboxStore.Target>> targets,
            Instant now)
            throws JMSException {
        for (OutboxStore.Entry e : batch) {
            for (OutboxStore.Target t : targets.get(e.id())) {
                publisher.send(
                        session, producer, e.id(), e.message(), t.subscriber(), e.attempt(), now, expiry(e, now));
                try {
                    session.commit();
                } catch (JMSException refused) {
                    if (!duplicate(refused)) {
                        throw refused;
                    }
                }
            }
        }
    }

    /** Whether the broker refused a commit because it holds a copy with a duplicate id it has seen. */
    static boolean duplicate(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            // The client's ActiveMQDuplicateIdException, named: the adapter's classes are not the application's.
            if (t.getClass().getName().endsWith("ActiveMQDuplicateIdException")) {
                return true;
            }
            if (t instanceof JMSException jms && jms.getLinkedException() != null && jms.getLinkedException() != t) {
                if (duplicate(jms.getLinkedException())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean rolledBack(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("40");
    }

    /** The {@link #MARK_REFUSED} fault point, as the database's refusal it stands for. */
    private void refusedByTest() throws SQLException {
        try {
            faults.checkpoint(MARK_REFUSED);
        } catch (InjectedFault e) {
            throw new SQLTransactionRollbackException(e.getMessage(), "40001", e);
        }
    }

    /**
     * Bounds how long this batch's claim can be held (PostgreSQL): a relay that stops between its statements (a
     * frozen process, a lost network) leaves its session idle in the transaction, and the database ends it after
     * {@code courier.reliable.relay-claim-timeout}, releasing the rows for another relay well within the broker's
     * duplicate-id window. Derby is embedded: its relay dies with its process.
     */
    private void boundClaim(Connection c, Dialect dialect) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            try (var set = c.prepareStatement("SELECT set_config('idle_in_transaction_session_timeout', ?, true)")) {
                set.setString(1, settings.relayClaimTimeout.toMillis() + "ms");
                set.execute();
            }
        }
    }

    /**
     * The claimed entries to publish in this batch: in order, as long as their copies' payloads (characters) stay
     * within {@code maxBytes}, {@code courier.reliable.relay-batch-bytes} (at least one entry), so a batch of large
     * messages to many subscribers cannot exhaust the heap. The rest stay in the outbox for the next batch.
     */
    static List<OutboxStore.Entry> withinBytes(
            List<OutboxStore.Entry> claimed, Map<String, List<OutboxStore.Target>> targets, long maxBytes) {
        long bytes = 0;
        int n = 0;
        for (OutboxStore.Entry e : claimed) {
            bytes += (long) e.message().payload().length()
                    * Math.max(1, targets.get(e.id()).size());
            if (n > 0 && bytes > maxBytes) {
                break;
            }
            n++;
        }
        return n == claimed.size() ? claimed : claimed.subList(0, n);
    }

    /**
     * When an entry's copies expire: at its message's horizon, after which no copy may be handled (an inbox row may
     * be purged); the first publish of a message confirmed after that horizon (a producer's late word, which no
     * consumer has seen) one horizon after now.
     */
    private Instant expiry(OutboxStore.Entry e, Instant now) {
        Instant horizon = settings.horizonOf(e.message().createdAt());
        return e.subscriber() == null && horizon.isBefore(now) ? now.plus(settings.horizon) : horizon;
    }

    /** The targets of entries not to be published, each deadline at once (a timeout of 0). */
    private static Map<String, List<OutboxStore.Target>> dueNow(
            List<OutboxStore.Entry> entries, Map<String, List<OutboxStore.Target>> targets) {
        Map<String, List<OutboxStore.Target>> now = new java.util.HashMap<>();
        for (OutboxStore.Entry e : entries) {
            now.put(
                    e.id(),
                    targets.get(e.id()).stream()
                            .map(t -> new OutboxStore.Target(t.subscriber(), 0))
                            .toList());
        }
        return now;
    }

    private boolean relay() throws SQLException {
        try (Connection c = database.connection()) {
            Dialect dialect = ReliableDatabase.dialect(c);
            c.setAutoCommit(false);
            try {
                boundClaim(c, dialect);
                List<OutboxStore.Entry> claimed = outbox.claim(c, dialect, settings.relayBatch);
                if (!claimed.isEmpty()) {
                    Instant now = clock.instant();
                    Map<String, List<OutboxStore.Target>> targets = outbox.targets(c, claimed);
                    List<OutboxStore.Entry> batch = withinBytes(claimed, targets, settings.relayBatchBytes);
                    // Past its horizon a message gets no further copy, redelivered or replayed to one subscriber
                    // (its first, confirmed late, it may): marked relayed with its deadline now, the reconciler
                    // buries the delivery and tells the producer.
                    List<OutboxStore.Entry> late = batch.stream()
                            .filter(e -> e.subscriber() != null
                                    && settings.pastHorizon(e.message().createdAt(), now))
                            .toList();
                    if (!late.isEmpty()) {
                        batch = batch.stream().filter(e -> !late.contains(e)).toList();
                        outbox.relayed(c, dialect, late, dueNow(late, targets), now);
                        if (batch.isEmpty()) {
                            c.commit();
                            return claimed.size() == settings.relayBatch || late.size() < claimed.size();
                        }
                    }
                    faults.checkpoint(BEFORE_PUBLISH);
                    // The classic API: the resource adapter gives a local transacted session outside JTA only to
                    // createSession (AllowLocalTransactions); its JMSContext refuses SESSION_TRANSACTED there.
                    try (jakarta.jms.Connection jms = broker.createConnection();
                            Session session = jms.createSession(true, Session.SESSION_TRANSACTED);
                            MessageProducer producer = session.createProducer(null)) {
                        try {
                            for (OutboxStore.Entry e : batch) {
                                for (OutboxStore.Target t : targets.get(e.id())) {
                                    publisher.send(
                                            session,
                                            producer,
                                            e.id(),
                                            e.message(),
                                            t.subscriber(),
                                            e.attempt(),
                                            now,
                                            expiry(e, now));
                                }
                            }
                            session.commit();
                        } catch (JMSException e) {
                            if (!duplicate(e)) {
                                throw e;
                            }
                            // Some of the batch reached the broker before (the relay died, or the broker failed
                            // over, after its commit and before the mark), so the broker refused the whole batch.
                            // One copy per transaction finds which: a refusal says that copy is there already.
                            LOG.info(
                                    "a batch of " + batch.size() + " held copies the broker has: published one by one");
                            publishOneByOne(session, producer, batch, targets, now);
                        }
                    } catch (JMSException e) {
                        throw new JMSRuntimeException(
                                "publishing a batch of " + batch.size() + " failed: " + e, e.getErrorCode(), e);
                    }
                    faults.checkpoint(AFTER_BROKER_COMMIT);
                    markRelayed(c, dialect, batch, targets);
                    return claimed.size() == settings.relayBatch || batch.size() + late.size() < claimed.size();
                }
                c.commit();
                return false;
            } catch (RuntimeException | SQLException | Error e) {
                // An error too: restoring autocommit below would otherwise commit half a mark.
                try {
                    c.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback); // the connection is gone: the pool discards it
                }
                throw e;
            } finally {
                try {
                    c.setAutoCommit(true);
                } catch (SQLException closed) {
                    // a broken connection: nothing to restore
                }
            }
        }
    }
}
