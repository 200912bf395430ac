package dev.courier.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
    /** How long a drain waits for more items, by default. EXPERIMENT: env knob, to be removed. */
    static final java.time.Duration DEFAULT_LINGER =
            java.time.Duration.ofMillis(Long.parseLong(System.getenv().getOrDefault("COURIER_CLIENT_LINGER_MS", "5")));

    /** Calls on their way at once, at most. */
    static final int MAX_CALLS = 4;

    private final AtomicInteger drains = new AtomicInteger();
    /** Drains waiting out {@link #linger} before they take their batch: a new item joins them, starts no drain. */
    private final AtomicInteger lingering = new AtomicInteger();
    /** How long a drain waits for more items before it takes a batch that is not full. */
    private final long lingerNanos;

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
            int maxQueued,
            java.time.Duration linger) {
        this.what = what;
        this.recovery = recovery;
        this.send = send;
        this.messageId = messageId;
        this.executor = executor;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
        this.lingerNanos = linger.toNanos();
    }

    static AfterCompletionBatches<CourierApi.Report> reports(
            CourierApi courier, Executor executor, int maxBatch, int maxQueued, java.time.Duration linger) {
        return new AfterCompletionBatches<>(
                "reports",
                "Courier redelivers the message after the delivery timeout",
                courier::report,
                CourierApi.Report::messageId,
                executor,
                maxBatch,
                maxQueued,
                linger);
    }

    static AfterCompletionBatches<CourierApi.Settle> settles(
            CourierApi courier, Executor executor, int maxBatch, int maxQueued, java.time.Duration linger) {
        return new AfterCompletionBatches<>(
                "confirms and cancels",
                "Courier's check-back settles the message",
                courier::settle,
                CourierApi.Settle::messageId,
                executor,
                maxBatch,
                maxQueued,
                linger);
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
        if (lingering.get() > 0) {
            return true; // a drain gathering its batch takes it
        }
        int running;
        do {
            running = drains.get();
            if (running >= MAX_CALLS) {
                return true; // a running drain takes it
            }
        } while (!drains.compareAndSet(running, running + 1));
        // Counted as lingering from now, not from when the executor runs it: the items that come meanwhile join it.
        boolean linger = lingerNanos > 0;
        if (linger) {
            lingering.incrementAndGet();
        }
        try {
            executor.execute(() -> run(linger));
            return true;
        } catch (RejectedExecutionException e) {
            if (linger) {
                lingering.decrementAndGet();
            }
            drains.decrementAndGet();
            LOG.log(Level.WARNING, "the executor refused to send " + what + "; " + recovery, e);
            List<T> dropped;
            while (!(dropped = take()).isEmpty()) {
                queued.addAndGet(-dropped.size());
            }
            return false;
        }
    }

    /** @param lingeringCounted this drain was counted in {@link #lingering} when it was started */
    private void run(boolean lingeringCounted) {
        try {
            List<T> batch;
            boolean counted = lingeringCounted;
            while (!(batch = lingerAndTake(counted)).isEmpty()) {
                counted = false;
                send(batch);
            }
        } finally {
            drains.decrementAndGet();
            if (!queue.isEmpty()) {
                drain(); // an item came between the last take and the count
            }
        }
    }

    /**
     * Waits out the linger when fewer than a full batch wait, so that the items of the next few milliseconds go in
     * the same call: at one item per call the fixed cost of a call (a request, a transaction in Courier, the relay's
     * broker and database transactions behind a confirm) is paid per message. Items that come meanwhile start no
     * drain of their own. The drain loops until it takes nothing, so an item that saw it lingering is taken.
     *
     * @param counted this drain is counted in {@link #lingering} already
     */
    private List<T> lingerAndTake(boolean counted) {
        if (!counted) {
            if (lingerNanos <= 0 || queued.get() >= maxBatch) {
                return take();
            }
            lingering.incrementAndGet();
        }
        try {
            if (queued.get() < maxBatch) {
                LockSupport.parkNanos(lingerNanos);
            }
            return take();
        } finally {
            lingering.decrementAndGet();
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
