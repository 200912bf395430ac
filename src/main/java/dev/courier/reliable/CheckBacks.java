package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * Check-backs, one of the {@link Reconciler}'s jobs: pending messages past their timeout are claimed in batches (a
 * lease on the row, so on several servers each is checked by one) and queued in a lane per producer; each lane
 * runs its calls in parallel behind the producer's own {@link ProducerGate}, so a slow or dead producer holds only
 * its own permits and opens only its own circuit, and the calls hold no thread while a producer thinks. COMMITTED
 * confirms, ROLLED_BACK cancels; anything else is tried again with capped, jittered exponential backoff, and after
 * {@code courier.reliable.max-checks} the message is dead and its producer told.
 *
 * <p>Why not MicroProfile Fault Tolerance annotations for the pacing: their bulkhead and circuit breaker are one per
 * method for all callers, so one dead producer would open the circuit for every producer. The gate is per producer.
 */
@ApplicationScoped
class CheckBacks {

    private static final Logger LOG = Logger.getLogger(CheckBacks.class.getName());

    @Resource
    private ManagedExecutorService executor;

    @Inject
    private ReliableMeters meters;

    @Inject
    private ReconcileSteps steps;

    @Inject
    private CheckBack checkBack;

    @Inject
    private ProducerGates gates;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    /** Claimed check-backs waiting for their producer's gate, per producer. */
    private final Map<String, Deque<MessageStore.ClaimedCheck>> lanes = new ConcurrentHashMap<>();

    private final AtomicInteger waiting = new AtomicInteger();

    /**
     * Claims due check-backs, batch after batch, up to {@code courier.reliable.max-waiting-checks} waiting on this
     * server, and lets each producer's lane start them as its gate allows. The calls outlive this method.
     */
    void run() {
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
                    .ask(check.producer(), check.checkBackUrl(), check.secret(), check.id())
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
        meters.checkBack(check.producer(), answer.status().name().toLowerCase(Locale.ROOT));
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
