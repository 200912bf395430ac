package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.logging.Logger;

/**
 * Redelivery after a sent timeout, one of the {@link Reconciler}'s jobs: a delivery whose subscriber did not report
 * in time (or reported a failure) is sent again to that subscriber's queue alone, unless a copy still waits there
 * (a backlog, not a loss: its deadline moves on); past its retry limit, or past the horizon, it is dead and the
 * producer told.
 */
@ApplicationScoped
class Redeliveries {

    private static final Logger LOG = Logger.getLogger(Redeliveries.class.getName());

    @Inject
    private ReconcileSteps steps;

    @Inject
    private Publisher publisher;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    /**
     * Redelivers due deliveries, batch after batch, until none is due or one {@code courier.reliable.reconcile-interval}
     * is up. One that fails (its message locked past the bound, say) is left for the next round and the others go
     * on; three failures in a row end the round (the database is likely down).
     */
    void run() {
        long untilNanos = System.nanoTime() + settings.reconcileInterval.toNanos();
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
}
