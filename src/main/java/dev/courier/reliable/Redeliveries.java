package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Redelivery after a sent timeout, one of the {@link Reconciler}'s jobs: a delivery whose subscriber did not report
 * in time (or reported a failure) is sent again to that subscriber's queue alone, unless the queue still holds a
 * copy, or may (a backlog, not a loss: its deadline moves on); past its retry limit, or past the horizon, it is dead
 * and the producer told.
 *
 * <p>Due deliveries are claimed (a lease on the row, as check-backs are), so on several servers each is handled by
 * one; a claim takes at most {@value #PER_SUBSCRIBER} of one subscriber, so one subscriber's backlog does not keep
 * the others' redeliveries waiting. The broker is asked once per subscriber and claim, for all of that subscriber's
 * claimed deliveries together ({@link Publisher#copiesHeld}). When the broker cannot answer, nothing is sent: the
 * claim runs out and the deliveries are due again ({@code courier.reliable.claim-lease} later). What a round
 * claimed and had no time for is given back, due at once.
 */
@ApplicationScoped
class Redeliveries {

    private static final Logger LOG = Logger.getLogger(Redeliveries.class.getName());

    /** Due deliveries of one subscriber per claim, at most. */
    static final int PER_SUBSCRIBER = 25;

    @Inject
    private ReconcileSteps steps;

    @Inject
    private Publisher publisher;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    /**
     * Redelivers due deliveries, claim after claim, until none is due or one {@code courier.reliable.reconcile-interval}
     * is up. One that fails (its message locked past the bound, say) is left for its claim to run out and the
     * others go on; three failures in a row end the round (the database or the broker is likely down).
     */
    void run() {
        Round round = new Round(System.nanoTime() + settings.reconcileInterval.toNanos());
        List<LedgerStore.DueDelivery> claimed;
        do {
            claimed = steps.claimDeliveries(PER_SUBSCRIBER);
            Map<String, List<LedgerStore.DueDelivery>> bySubscriber = new LinkedHashMap<>();
            for (LedgerStore.DueDelivery d : claimed) {
                bySubscriber
                        .computeIfAbsent(d.topic() + "\n" + d.row().subscriber(), k -> new java.util.ArrayList<>())
                        .add(d);
            }
            List<List<LedgerStore.DueDelivery>> groups = List.copyOf(bySubscriber.values());
            for (int i = 0; i < groups.size(); i++) {
                if (round.over()) {
                    release(groups.subList(i, groups.size()));
                    return;
                }
                handle(groups.get(i), round);
            }
        } while (!claimed.isEmpty() && !round.over()); // handled rows are not due any more
    }

    /** One round's time and its failures in a row: three end it (the database or the broker is likely down). */
    private static final class Round {
        private final long untilNanos;
        private int failuresInARow;

        Round(long untilNanos) {
            this.untilNanos = untilNanos;
        }

        boolean over() {
            return failuresInARow >= 3 || System.nanoTime() >= untilNanos;
        }
    }

    /** Gives back what this round claimed and had no time for (if that fails too, the claims run out). */
    private void release(List<List<LedgerStore.DueDelivery>> unhandled) {
        try {
            steps.release(unhandled.stream()
                    .flatMap(List::stream)
                    .map(LedgerStore.DueDelivery::row)
                    .toList());
        } catch (RuntimeException e) {
            LOG.fine(() -> "claimed deliveries left to their lease: " + e);
        }
    }

    /** One subscriber's claimed deliveries: buried past the horizon, else redelivered or left to its backlog. */
    private void handle(List<LedgerStore.DueDelivery> due, Round round) {
        LedgerStore.DueDelivery first = due.get(0);
        String topic = first.topic();
        String subscriber = first.row().subscriber();
        List<LedgerStore.DueDelivery> live = new java.util.ArrayList<>();
        for (LedgerStore.DueDelivery d : due) {
            if (settings.pastHorizon(d.createdAt(), clock.instant())) {
                act(d, round, () -> {
                    // The consumer may have purged its inbox row: no copy of it may be handled any more.
                    publisher.removeCopies(topic, subscriber, d.row().messageId());
                    steps.redeliver(d.row()); // buries it
                });
            } else {
                live.add(d);
            }
        }
        if (live.isEmpty()) {
            return;
        }
        Map<String, Long> held;
        try {
            held = publisher.copiesHeld(
                    topic,
                    subscriber,
                    live.stream().map(d -> d.row().messageId()).toList());
        } catch (RuntimeException e) {
            // Not known whether the copies are there: no copy now; the claims run out and they are due again.
            LOG.warning("could not ask the broker what " + subscriber + "'s queue on " + topic + " holds; "
                    + live.size() + " due deliveries wait for their claim to run out: " + e);
            round.failuresInARow++;
            return;
        }
        for (LedgerStore.DueDelivery d : live) {
            long copies = held.getOrDefault(d.row().messageId(), 0L);
            if (copies > 0) {
                act(
                        d,
                        round,
                        () -> steps.stillQueued(
                                d.row(),
                                copies + " cop" + (copies == 1 ? "y" : "ies")
                                        + " still in the subscriber's queue: deadline moved"));
            } else {
                act(d, round, () -> steps.redeliver(d.row()));
            }
        }
    }

    private void act(LedgerStore.DueDelivery d, Round round, Runnable step) {
        try {
            step.run();
            round.failuresInARow = 0;
        } catch (RuntimeException e) {
            round.failuresInARow++;
            LOG.warning("redelivery of " + d.row().messageId() + " to "
                    + d.row().subscriber() + " failed; it is due again when its claim runs out: " + e);
        }
    }
}
