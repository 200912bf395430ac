package dev.courier.scenario;

import dev.courier.platform.FaultInjection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.temporal.ChronoUnit;
import org.eclipse.microprofile.faulttolerance.Retry;

/**
 * The rms mode's reply leg when {@code courier.scenario.rms-reply} is {@code direct}: the queue mode's shape, so
 * that the two asynchronous modes carry their replies alike (the comparison lab's setting). The inventory's
 * transaction recorded the order's outcome beside its reservation ({@link Inventory#recordOutcome}); after that
 * commit, and before the broker's copy of the order is acknowledged, the outcome is written on the order in the
 * orders database. Until then the unacknowledged copy carries the reply: a crash in between redelivers it, the
 * inbox keeps the reservation from being made again, and the outcome is written again (a repeated answer changes
 * nothing).
 */
@ApplicationScoped
class RmsDirectReply {

    @Inject
    private Inventory inventory;

    @Inject
    private OrderBook book;

    @Inject
    private FaultInjection faults;

    /** The checkpoint inside the retried write (the orders database away, in the tests). */
    static final String WRITING = "scenario.rms.direct-reply";

    /**
     * Writes the recorded outcome of {@code orderId} on the order; nothing when none is recorded (the inventory's
     * transaction rolled back: Courier delivers the order again after its backoff).
     */
    // Retried here, in process, while the orders database is away (a restart, a failover), for up to 10 minutes:
    // thrown out of onMessage at once, the copy would go back to the broker, whose immediate redeliveries on
    // Courier's addresses end in its dead-letter address after 10 attempts.
    @Retry(maxRetries = -1, delay = 500, jitter = 250, maxDuration = 10, durationUnit = ChronoUnit.MINUTES)
    void settle(String orderId) {
        inventory.processed(orderId).ifPresent(outcome -> {
            faults.checkpoint(WRITING);
            book.settle(orderId, outcome);
        });
    }
}
