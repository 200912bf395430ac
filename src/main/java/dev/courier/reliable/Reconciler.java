package dev.courier.reliable;

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
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Settles what the protocol's happy path left open, every {@code courier.reliable.reconcile-interval} (1 s):
 * <ul>
 * <li><b>Check-back</b>: pending messages past their timeout are claimed in batches (a lease on the row, so on
 * several servers each is checked by one) and checked back in parallel on the managed executor, each producer
 * behind its own {@link ProducerGate} — a slow or dead producer holds only its own permits and opens only its
 * own circuit. COMMITTED confirms, ROLLED_BACK cancels; anything else is tried again with capped, jittered
 * exponential backoff, and after {@code courier.reliable.max-checks} the message is dead and its producer told.
 * <li><b>Sent timeout</b>: a delivery whose subscriber did not report in time (or reported a failure) is sent
 * again to that subscriber's queue alone; past its retry limit it is dead and the producer told.
 * <li><b>Notices</b> to producers, retried until answered with 2xx; and the purge of finished messages.
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
    private static final java.time.Duration PURGE_EVERY = java.time.Duration.ofMinutes(1);

    @Resource
    private TimerService timers;

    @Resource
    private ManagedExecutorService executor;

    @Inject
    private ReconcileSteps steps;

    @Inject
    private CheckBack checkBack;

    @Inject
    private Notifier notifier;

    @Inject
    private ProducerGates gates;

    @Inject
    private ReliableSettings settings;

    @Inject
    private Clock clock;

    private final AtomicBoolean running = new AtomicBoolean();
    private volatile Instant lastPurge = Instant.MIN;

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
                Instant now = clock.instant();
                if (!now.isBefore(lastPurge.plus(PURGE_EVERY))) {
                    lastPurge = now;
                    steps.purge();
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "reconcile failed; it runs again in " + settings.reconcileInterval, e);
            } finally {
                running.set(false);
            }
        }
    }

    /**
     * One round: claims due check-backs and starts them, redelivers due deliveries, starts due notices.
     *
     * @return completes when every call this round started has been answered and recorded
     */
    public CompletableFuture<Void> reconcile() {
        List<CompletableFuture<?>> started = new ArrayList<>();
        for (ReliableStore.ClaimedCheck check : steps.claimChecks()) {
            ProducerGate gate = gates.of(check.producer());
            Instant now = clock.instant();
            if (!gate.tryAcquire(now)) {
                steps.defer(check, gate.retryAt(now, settings.reconcileInterval));
                continue;
            }
            // The call holds no thread while the producer answers; settling runs on the managed executor.
            started.add(checkBack.ask(check.checkBackUrl(), check.id())
                    .handleAsync((answer, error) -> settle(check, gate, answer, error), executor));
        }
        for (ReliableStore.DeliveryRow due : steps.dueDeliveries()) {
            try {
                steps.redeliver(due);
            } catch (RuntimeException e) {
                // The row is still due: the next round tries again.
                LOG.warning("redelivery of " + due.messageId() + " to " + due.subscriber() + " failed: " + e);
            }
        }
        for (ReliableStore.ClaimedNotice notice : steps.claimNotices()) {
            started.add(CompletableFuture.runAsync(() -> steps.noticeOutcome(notice,
                    notice.url() == null ? "the producer has no notification URL" : notifier.tell(notice.url(), notice.body())),
                    executor));
        }
        return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
    }

    private Void settle(ReliableStore.ClaimedCheck check, ProducerGate gate, CheckBack.Answer answer, Throwable error) {
        if (error != null) {
            Throwable cause = error.getCause() instanceof CheckBack.Failure failure ? failure : error;
            String why = cause instanceof CheckBack.Failure ? cause.getMessage() : cause.toString();
            gate.failed(why, clock.instant());
            steps.unsettled(check, why);
            return null;
        }
        gate.succeeded();
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
