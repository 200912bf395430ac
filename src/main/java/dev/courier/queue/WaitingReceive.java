package dev.courier.queue;

import dev.courier.access.Caller;
import dev.courier.platform.ProblemException;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A receive that waits for messages without holding a thread: each attempt is a short claim in its own
 * transaction, run at once, then again when a send to the queue commits in this server, or after a poll
 * interval that doubles from 50 ms up to {@code courier.queue.poll-interval-max} (for sends on other servers
 * and messages falling due). Completes with the first non-empty claim, or with nothing when the wait is over
 * or its receiver has gone: a caller that can tell (the event stream, which writes a heartbeat) is asked before
 * every claim after the first, so a receiver that went away stops claiming messages it would never see.
 */
@ApplicationScoped
class WaitingReceive {

    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    @Inject
    private Claims claims;

    @Inject
    private Waiters waiters;

    @Inject
    private CallerWaits callerWaits;

    @Inject
    private QueueSettings settings;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    private ManagedScheduledExecutorService scheduler;

    /**
     * Starts waiting; the first claim runs in the calling thread, so an unknown queue, bad input or a
     * caller the grants refuse fails here (grants are checked then, not again during the wait).
     * The caller may end the wait by completing the future (cancel, {@code orTimeout}): nothing more is claimed
     * for it, and a claim that raced its end is given back without counting an attempt.
     *
     * @throws QueueLimitException 429 when too many receivers already wait on the queue, or too many of the caller's
     */
    CompletableFuture<List<Delivery>> start(QueueName name, int max, Duration lease, Duration wait, Caller caller) {
        return start(name, max, lease, wait, caller, () -> true);
    }

    /**
     * {@link #start(QueueName, int, Duration, Duration, Caller)} for a receiver that may go away: {@code present} is asked
     * (on a scheduler thread) before every claim after the first, and when it answers false the wait ends with
     * nothing claimed.
     */
    CompletableFuture<List<Delivery>> start(
            QueueName name, int max, Duration lease, Duration wait, Caller caller, BooleanSupplier present) {
        if (wait.isNegative() || wait.compareTo(settings.maxWait) > 0) {
            throw ProblemException.invalid("wait must be between 0 and " + settings.maxWait.toSeconds() + " seconds");
        }
        Runnable callerLeaves =
                callerWaits.enter(name, caller, settings.maxWaitersPerCaller, settings.maxWaitersPerCallerTotal);
        Waiters.Signal signal;
        try {
            signal = waiters.enter(name, settings.maxWaiters);
        } catch (RuntimeException e) {
            callerLeaves.run();
            throw e;
        }
        Attempt attempt = new Attempt(
                name, max, lease, caller, signal, callerLeaves, System.nanoTime() + wait.toNanos(), present);
        try {
            attempt.run();
        } catch (RuntimeException e) {
            attempt.ended(); // leaves both, once
            throw e;
        }
        return attempt.result;
    }

    /** One waiting receiver: its deadline, its poll interval, and what is scheduled for it next. */
    private final class Attempt implements Runnable {

        private final CompletableFuture<List<Delivery>> result = new CompletableFuture<>();
        private final QueueName name;
        private final int max;
        private final Duration lease;
        private final Caller caller;
        private final Waiters.Signal signal;
        private final Runnable callerLeaves;
        private final long deadline;
        private final BooleanSupplier present;
        private final Runnable wake = this::wakeUp;
        private long poll = FIRST_POLL_NANOS;
        private ScheduledFuture<?> next;
        private boolean first = true;
        private boolean left;

        Attempt(
                QueueName name,
                int max,
                Duration lease,
                Caller caller,
                Waiters.Signal signal,
                Runnable callerLeaves,
                long deadline,
                BooleanSupplier present) {
            this.callerLeaves = callerLeaves;
            this.caller = caller;
            this.present = present;
            result.whenComplete((received, failure) -> ended());
            this.name = name;
            this.max = max;
            this.lease = lease;
            this.signal = signal;
            this.deadline = deadline;
        }

        @Override
        public synchronized void run() {
            if (result.isDone()) {
                return;
            }
            if (!first && !present.getAsBoolean()) {
                finish(List.of(), null); // nobody to deliver to: leave the messages to receivers still there
                return;
            }
            List<Delivery> deliveries;
            long seen = signal.generation();
            try {
                // Grants are checked at every claim, not only the first: a grant revoked while the receiver waits
                // ends its wait at the next claim. The caller's groups come from its subject, kept with it, so it
                // can be asked on the scheduler's thread after its request thread has moved on (Caller.of).
                deliveries = claims.claim(name, max, lease, caller);
            } catch (RuntimeException e) {
                if (first) {
                    throw e; // the caller's thread: let it fail as a plain receive would
                }
                finish(null, e);
                return;
            } finally {
                first = false;
            }
            long left = deadline - System.nanoTime();
            if (!deliveries.isEmpty() || left <= 0) {
                finish(deliveries, null);
                return;
            }
            next = scheduler.schedule(this, Math.min(left, poll), TimeUnit.NANOSECONDS);
            poll = Math.min(poll * 2, settings.pollIntervalMax.toNanos());
            signal.onChange(seen, wake);
        }

        private synchronized void wakeUp() {
            if (!result.isDone() && next != null && next.cancel(false)) {
                next = scheduler.schedule(this, 0, TimeUnit.NANOSECONDS);
            }
        }

        private void finish(List<Delivery> deliveries, Throwable failure) {
            // The place is free before the answer goes out: a receiver that polls again at once must find it
            // free (the stage's callbacks run newest first, so ended() would run after the answer was sent).
            ended();
            boolean completed = failure != null ? result.completeExceptionally(failure) : result.complete(deliveries);
            if (!completed && deliveries != null && !deliveries.isEmpty()) {
                claims.giveBack(name, deliveries); // the caller gave up while we claimed: nobody will see these
            }
        }

        /** Once, however the wait ends: finished here, or cancelled or timed out by the caller. */
        private synchronized void ended() {
            if (left) {
                return;
            }
            left = true;
            signal.forget(wake);
            signal.leave();
            callerLeaves.run();
            if (next != null) {
                next.cancel(false);
            }
        }
    }
}
