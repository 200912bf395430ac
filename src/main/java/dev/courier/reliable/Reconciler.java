package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Settles what the protocol's happy path left open, every {@code courier.reliable.reconcile-interval} (1 s):
 * <ul>
 * <li><b>Check-back</b>: pending messages past their timeout are claimed in batches (a lease on the row, so on
 * several servers each is checked by one) and queued in a lane per producer; each lane runs its calls in
 * parallel behind the producer's own {@link ProducerGate}, so a slow or dead producer holds only its own permits
 * and opens only its own circuit, and the calls hold no thread while a producer thinks. COMMITTED confirms, ROLLED_BACK cancels; anything else is tried again with capped, jittered
 * exponential backoff, and after {@code courier.reliable.max-checks} the message is dead and its producer told.
 * <li><b>Sent timeout</b>: a delivery whose subscriber did not report in time (or reported a failure) is sent
 * again to that subscriber's queue alone; past its retry limit it is dead and the producer told.
 * <li><b>Notices</b> to producers, retried until answered with 2xx.
 * </ul>
 * Why not MicroProfile Fault Tolerance annotations for the pacing: their bulkhead and circuit breaker are one per
 * method for all callers, so one dead producer would open the circuit for every producer. The gate is per producer.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());

    @Resource
    private TimerService timers;

    @Resource
    private ManagedExecutorService executor;

    @Inject
    private ReliableMeters meters;

    @Inject
    private ReconcileSteps steps;

    @Inject
    private CheckBack checkBack;

    @Inject
    private Notifier notifier;

    @Inject
    private ProducerGates gates;

    @Inject
    private Publisher publisher;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    private final AtomicBoolean running = new AtomicBoolean();
    /** Claimed check-backs waiting for their producer's gate, per producer. */
    private final Map<String, Deque<MessageStore.ClaimedCheck>> lanes = new ConcurrentHashMap<>();

    private final AtomicInteger waiting = new AtomicInteger();

    @PostConstruct
    void schedule() {
        long interval = settings.reconcileInterval.toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("courier.reliable.reconcile", false));
    }

    @Timeout
    void onTimer(Timer timer) {
        // Ticks never overlap on one server; the calls they start may outlive them.
        if (running.compareAndSet(false, true)) {
            try {
                reconcile();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "reconcile failed; it runs again in " + settings.reconcileInterval, e);
            } finally {
                running.set(false);
            }
        }
    }

    /**
     * One round: claims due check-backs (batch after batch, up to {@code courier.reliable.max-waiting-checks}
     * waiting on this server) and lets each producer's lane start them as its gate allows; redelivers due
     * deliveries (batch after batch, for at most one interval); starts due notices.
     */
    public void reconcile() {
        while (waiting.get() < settings.maxWaitingChecks) {
            List<MessageStore.ClaimedCheck> claimed = steps.claimChecks();
            for (MessageStore.ClaimedCheck check : claimed) {
                lanes.computeIfAbsent(check.producer(), p -> new ConcurrentLinkedDeque<>())
                        .add(check);
                waiting.incrementAndGet();
            }
            if (claimed.size() < settings.batchSize) {
                break;
            }
        }
        lanes.keySet().forEach(this::pump);
        long until = System.nanoTime() + settings.reconcileInterval.toNanos();
        redeliver(until);
        for (NoticeStore.ClaimedNotice notice : steps.claimNotices()) {
            executor.execute(() -> steps.noticeOutcome(
                    notice,
                    notice.url() == null
                            ? "the producer has no notification URL"
                            : notifier.tell(notice.url(), notice.secret(), notice.body())));
        }
    }

    /**
     * Redelivers due deliveries, batch after batch, until none is due or the time is up. One that fails (its
     * message locked past the bound, say) is left for the next round and the others go on; three failures in a row
     * end the round (the database is likely down).
     */
    private void redeliver(long untilNanos) {
        List<LedgerStore.DueDelivery> due;
        int failuresInARow = 0;
        do {
            due = steps.dueDeliveries();
            for (LedgerStore.DueDelivery d : due) {
                LedgerStore.DeliveryRow delivery = d.row();
                if (System.nanoTime() >= untilNanos) {
                    return;
                }
                try {
                    if (settings.pastHorizon(d.createdAt(), clock.instant())) {
                        // The consumer may have purged its inbox row: no copy of it may be handled any more.
                        publisher.removeCopies(d.topic(), delivery.subscriber(), delivery.messageId());
                        steps.redeliver(delivery); // buries it
                        failuresInARow = 0;
                        continue;
                    }
                    long queued = copiesQueued(d);
                    if (queued > 0) {
                        steps.stillQueued(delivery, queued); // a backlog, not a loss: no further copy
                    } else {
                        steps.redeliver(delivery);
                    }
                    failuresInARow = 0;
                } catch (RuntimeException e) {
                    LOG.warning("redelivery of " + delivery.messageId() + " to " + delivery.subscriber()
                            + " failed; the next round tries again: " + e);
                    if (++failuresInARow == 3) {
                        return;
                    }
                }
            }
        } while (due.size() == settings.batchSize && System.nanoTime() < untilNanos);
    }

    /**
     * Copies of the due delivery's message still in its subscriber's queue (0 when the broker cannot say: then a
     * redelivery is the safe side, a duplicate at worst, which the inbox absorbs).
     */
    private long copiesQueued(LedgerStore.DueDelivery d) {
        try {
            return publisher.copiesQueued(
                    d.topic(), d.row().subscriber(), d.row().messageId());
        } catch (RuntimeException e) {
            LOG.fine(() -> "could not count the copies of " + d.row().messageId() + " in its queue: " + e);
            return 0;
        }
    }

    /**
     * Starts the waiting check-backs of one producer while its gate admits them; a finished call pumps again.
     * Calls hold no thread while the producer answers; settling runs on the managed executor. An open circuit
     * puts every waiting check back in the table, due when the circuit half-opens, without counting it.
     */
    private void pump(String producer) {
        Deque<MessageStore.ClaimedCheck> lane = lanes.get(producer);
        ProducerGate gate = gates.of(producer);
        while (true) {
            MessageStore.ClaimedCheck check = lane.poll();
            if (check == null) {
                return;
            }
            Instant now = clock.instant();
            if (now.isAfter(check.leaseUntil().minus(settings.claimLease.dividedBy(2)))) {
                waiting.decrementAndGet(); // waited too long: its lease may pass to another server; left to that
                continue;
            }
            if (settings.pastHorizon(check.createdAt(), now)) {
                waiting.decrementAndGet(); // the producer may have purged its barrier row: asking it could lie
                steps.pastHorizon(check);
                continue;
            }
            if (gate.circuit(now) == Circuit.OPEN) {
                waiting.decrementAndGet();
                steps.defer(check, gate.retryAt(now, settings.reconcileInterval));
                continue;
            }
            if (!gate.tryAcquire(now)) {
                lane.addFirst(check); // the bulkhead is full: the next finished call of this producer pumps again
                return;
            }
            waiting.decrementAndGet();
            checkBack
                    .ask(check.checkBackUrl(), check.secret(), check.id())
                    .handleAsync(
                            (answer, error) -> {
                                try {
                                    return settle(check, gate, answer, error);
                                } finally {
                                    pump(producer);
                                }
                            },
                            executor);
        }
    }

    private Void settle(MessageStore.ClaimedCheck check, ProducerGate gate, CheckBack.Answer answer, Throwable error) {
        if (error != null) {
            Throwable cause = error.getCause() instanceof CheckBack.Failure failure ? failure : error;
            String why = cause instanceof CheckBack.Failure ? cause.getMessage() : cause.toString();
            gate.failed(why, clock.instant());
            meters.checkBack(check.producer(), "failed");
            steps.unsettled(check, why);
            return null;
        }
        gate.succeeded();
        meters.checkBack(check.producer(), answer.status().name().toLowerCase(java.util.Locale.ROOT));
        try {
            switch (answer.status()) {
                case COMMITTED -> steps.committed(check, answer.payload());
                case ROLLED_BACK -> steps.rolledBack(check);
                case PENDING -> steps.unsettled(check, "producer answered PENDING");
            }
        } catch (StateConflictException e) {
            LOG.warning("check-back of " + check.id() + " answered " + answer.status() + " but " + e.getMessage());
        } catch (RuntimeException e) {
            // Settling failed (broker or database down): counted as a check, tried again after the backoff.
            LOG.warning("settling check-back of " + check.id() + " (" + answer.status() + ") failed: " + e);
            steps.unsettled(check, "settling " + answer.status() + " failed: " + e);
        }
        return null;
    }
}
