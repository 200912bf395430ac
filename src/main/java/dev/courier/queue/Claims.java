package dev.courier.queue;

import dev.courier.access.Action;
import dev.courier.access.Caller;
import dev.courier.platform.FaultInjection;
import dev.courier.platform.ProblemException;
import dev.courier.platform.ProblemsRollBack;
import dev.courier.tracing.MessageTraces;
import dev.courier.tracing.MessageTraces.Passage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One claim: leases up to a number of deliverable messages of a queue, in the current transaction or a new one
 * ({@code REQUIRED}); the dialect records in each message's history the expired lease it replaced. Used by the plain
 * receive (in the caller's transaction) and by each attempt of a waiting receive (a transaction of its own).
 */
@ApplicationScoped
@ProblemsRollBack
@Transactional(value = Transactional.TxType.REQUIRED, dontRollbackOn = ProblemException.class)
class Claims {

    static final String AFTER_CLAIM = "queue.receive.after-claim";

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueStore queues;

    @Inject
    private MessageStore store;

    @Inject
    private QueueSettings settings;

    @Inject
    private FaultInjection faults;

    @Inject
    private QueueMeters meters;

    @Inject
    private MessageTraces traces;

    /**
     * @throws ProblemException 400 for {@code max} outside 1..{@code courier.queue.max-receive} or a bad lease
     * @throws dev.courier.access.NotGrantedException 403 when the queue's grants do not let {@code caller} consume
     */
    List<Delivery> claim(QueueName queue, int max, Duration lease, Caller caller) {
        try (Connection connection = databases.of(queue).planned()) {
            return claim(connection, queue, max, lease, caller);
        } catch (SQLException e) {
            throw new IllegalStateException("receive from " + queue + " failed", e);
        }
    }

    /** {@link #claim(QueueName, int, Duration, Caller)} on a connection the caller holds in this transaction. */
    List<Delivery> claim(Connection connection, QueueName queue, int max, Duration lease, Caller caller) {
        if (max < 1 || max > settings.maxReceive) {
            throw ProblemException.invalid("max must be between 1 and " + settings.maxReceive);
        }
        long start = System.nanoTime();
        try {
            QueueStore.QueueNow located = queues.requireQueue(connection, queue, caller, Action.CONSUME);
            QueueSpec spec = located.spec();
            Instant now = located.now();
            Duration leaseFor = lease == null ? spec.lease() : QueueSpec.checkLease(lease);
            List<QueueDialect.Claimed> claimed =
                    databases.dialect().claim(connection, spec, max, settings.maxPageBytes, leaseFor, now);
            int expired = 0;
            List<Delivery> deliveries = new ArrayList<>(claimed.size());
            for (QueueDialect.Claimed claim : claimed) {
                Delivery delivery = claim.delivery();
                Map<String, String> headers = traces.record(
                        Passage.RECEIVE, MessageTraces.COURIER, queue.value(), delivery.id(), delivery.headers());
                deliveries.add(
                        headers == delivery.headers()
                                ? delivery
                                : new Delivery(
                                        delivery.id(),
                                        queue,
                                        delivery.payload(),
                                        delivery.attempt(),
                                        delivery.leaseToken(),
                                        delivery.leaseExpiresAt(),
                                        headers));
                if (claim.expired()) {
                    expired++;
                }
            }
            databases.touched(deliveries.stream().map(Delivery::id).toList(), databases.of(queue));
            meters.onCommit(QueueMeters.Event.RECEIVED, queue, deliveries.size());
            meters.onCommit(QueueMeters.Event.EXPIRED, queue, expired);
            if (!deliveries.isEmpty()) {
                faults.checkpoint(AFTER_CLAIM); // a fault after leases were taken: they must roll back
            }
            meters.receiveTook(queue, System.nanoTime() - start);
            return deliveries;
        } catch (SQLException e) {
            throw new IllegalStateException("receive from " + queue + " failed", e);
        }
    }

    /**
     * Gives back leases taken for a receiver that went away before it could see them: each message is
     * deliverable again at once and its attempt is not counted (the receiver never had it). A lease that is no
     * longer current is left alone.
     *
     * @return how many were given back
     */
    int giveBack(QueueName queue, List<Delivery> deliveries) {
        try (Connection connection = databases.of(queue).planned()) {
            Instant now = queues.requireQueue(connection, queue).now();
            int given = 0;
            for (Delivery delivery : deliveries) {
                given += store.giveBack(connection, delivery.id(), delivery.leaseToken(), now);
            }
            return given;
        } catch (SQLException e) {
            throw new IllegalStateException("giving back leases of " + queue + " failed", e);
        }
    }
}
