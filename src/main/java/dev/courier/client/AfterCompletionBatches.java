package dev.courier.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends the helpers' calls that follow a transaction's completion (the producer's confirms and cancels, the
 * consumer's reports) in batches: while calls are on their way, the items that come meanwhile wait and go together
 * in the next. Up to {@value #MAX_CALLS} drains run at once on the executor: one drain, a single request thread in
 * Courier, would get a sixteenth of the server's time against sixteen busy producers' prepares, and fall behind. An item that cannot be sent (Courier unreachable, the
 * executor refusing, more than {@code maxQueued} waiting) is dropped with a warning, and Courier's own recovery
 * makes up for it: a check-back settles a message whose confirm was dropped, a redelivery after the delivery
 * timeout brings a report again. So each item is sent at most once, and its effect eventually happens.
 *
 * @param <T> the item: {@link CourierApi.Settle} or {@link CourierApi.Report}
 */
final class AfterCompletionBatches<T> {

    private static final Logger LOG = Logger.getLogger(AfterCompletionBatches.class.getName());

    private final String what;
    private final String recovery;
    private final Function<List<T>, List<String>> send;
    private final Function<T, String> messageId;
    private final Executor executor;
    private final int maxBatch;
    private final int maxQueued;
    private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** Calls on their way at once, at most. */
    static final int MAX_CALLS = 4;

    private final AtomicInteger drains = new AtomicInteger();

    /**
     * @param what the items' name in warnings ("reports", "confirms and cancels")
     * @param recovery what makes up for a dropped item, for warnings
     * @param send one call for a batch: one entry per item, null when accepted, else why it was refused
     */
    AfterCompletionBatches(
            String what,
            String recovery,
            Function<List<T>, List<String>> send,
            Function<T, String> messageId,
            Executor executor,
            int maxBatch,
            int maxQueued) {
        this.what = what;
        this.recovery = recovery;
        this.send = send;
        this.messageId = messageId;
        this.executor = executor;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
    }

    static AfterCompletionBatches<CourierApi.Report> reports(
            CourierApi courier, Executor executor, int maxBatch, int maxQueued) {
        return new AfterCompletionBatches<>(
                "reports",
                "Courier redelivers the message after the delivery timeout",
                courier::report,
                CourierApi.Report::messageId,
                executor,
                maxBatch,
                maxQueued);
    }

    static AfterCompletionBatches<CourierApi.Settle> settles(
            CourierApi courier, Executor executor, int maxBatch, int maxQueued) {
        return new AfterCompletionBatches<>(
                "confirms and cancels",
                "Courier's check-back settles the message",
                courier::settle,
                CourierApi.Settle::messageId,
                executor,
                maxBatch,
                maxQueued);
    }

    /** @return false when the item was dropped at once (too many waiting, or the executor refused) */
    boolean add(T item) {
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            LOG.fine(() -> maxQueued + " " + what + " waiting: the one of message " + messageId.apply(item)
                    + " is dropped; " + recovery);
            return false;
        }
        queue.add(item);
        return drain();
    }

    /** Items waiting or on their way. */
    int waiting() {
        return queued.get();
    }

    private boolean drain() {
        int running;
        do {
            running = drains.get();
            if (running >= MAX_CALLS) {
                return true; // a running drain takes it
            }
        } while (!drains.compareAndSet(running, running + 1));
        try {
            executor.execute(this::run);
            return true;
        } catch (RejectedExecutionException e) {
            drains.decrementAndGet();
            LOG.log(Level.WARNING, "the executor refused to send " + what + "; " + recovery, e);
            List<T> dropped;
            while (!(dropped = take()).isEmpty()) {
                queued.addAndGet(-dropped.size());
            }
            return false;
        }
    }

    private void run() {
        try {
            List<T> batch;
            while (!(batch = take()).isEmpty()) {
                send(batch);
            }
        } finally {
            drains.decrementAndGet();
            if (!queue.isEmpty()) {
                drain(); // an item came between the last take and the count
            }
        }
    }

    private List<T> take() {
        List<T> batch = new ArrayList<>();
        T item;
        while (batch.size() < maxBatch && (item = queue.poll()) != null) {
            batch.add(item);
        }
        return batch;
    }

    private void send(List<T> batch) {
        try {
            List<String> refused = send.apply(batch);
            for (int i = 0; i < refused.size(); i++) {
                if (refused.get(i) != null) {
                    LOG.warning("Courier refused the " + what + " item on message " + messageId.apply(batch.get(i))
                            + ": " + refused.get(i));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, batch.size() + " " + what + " to Courier failed; " + recovery, e);
        } finally {
            queued.addAndGet(-batch.size());
        }
    }
}
