package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import dev.courier.platform.Dialect;
import dev.courier.platform.FaultInjection;
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
import java.time.Instant;
import java.util.List;

/**
 * One batch of the {@link Relay}: publish in a local broker transaction, then mark in a local database transaction.
 * An EJB so that every batch is a unit of work of its own: its connections go back to their pools when it ends,
 * and a connection the broker or the database broke is not handed to the next batch (on the relay's own thread
 * one local transaction containment would last as long as the thread, and share its first connections for ever).
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RelayBatches {

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

    /** The database or the broker failed a batch: nothing was marked, its entries stay in the outbox. */
    public static final class Failure extends Exception {
        Failure(Exception cause) {
            super(cause.toString(), cause);
        }
    }

    /**
     * Relays one batch. @return how many entries it published
     * @throws Failure when the database or the broker failed (a checked exception: the container passes it on as
     *         it is, with no incident report for what is an outage, not a bug)
     */
    public int publish() throws Failure {
        try {
            return relay();
        } catch (SQLException | RuntimeException e) {
            throw new Failure(e);
        }
    }

    private int relay() throws SQLException {
        try (Connection c = database.connection()) {
            Dialect dialect = ReliableDatabase.dialect(c);
            c.setAutoCommit(false);
            try {
                List<OutboxStore.Entry> batch = outbox.claim(c, dialect, settings.relayBatch);
                if (!batch.isEmpty()) {
                    Instant now = clock.instant();
                    java.util.Map<String, List<OutboxStore.Target>> targets = outbox.targets(c, batch);
                    faults.checkpoint(BEFORE_PUBLISH);
                    // The classic API: the resource adapter gives a local transacted session outside JTA only to
                    // createSession (AllowLocalTransactions); its JMSContext refuses SESSION_TRANSACTED there.
                    try (jakarta.jms.Connection jms = broker.createConnection();
                            Session session = jms.createSession(true, Session.SESSION_TRANSACTED);
                            MessageProducer producer = session.createProducer(null)) {
                        for (OutboxStore.Entry e : batch) {
                            for (OutboxStore.Target t : targets.get(e.id())) {
                                publisher.send(session, producer, e.message(), t.subscriber(), e.attempt(), now);
                            }
                        }
                        session.commit();
                    } catch (JMSException e) {
                        throw new JMSRuntimeException(
                                "publishing a batch of " + batch.size() + " failed: " + e, e.getErrorCode(), e);
                    }
                    faults.checkpoint(AFTER_BROKER_COMMIT);
                    outbox.relayed(c, dialect, batch, targets, clock.instant());
                }
                c.commit();
                return batch.size();
            } catch (RuntimeException | SQLException e) {
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
