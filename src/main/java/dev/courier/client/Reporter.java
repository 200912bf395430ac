package dev.courier.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends a consumer's reports after their transactions completed, in batches: while one call is on its way, the
 * reports that come meanwhile wait and go together in the next. One drain runs at a time on the executor. A report
 * that cannot be sent (Courier unreachable, the executor refusing, more than {@code maxQueued} waiting) is dropped
 * with a warning: Courier redelivers the message after the subscriber's delivery timeout, the inbox skips the
 * effect, and the report is made again. So reports are at-most-once each, and eventually made.
 */
final class Reporter {

    private static final Logger LOG = Logger.getLogger(Reporter.class.getName());

    private final CourierApi courier;
    private final Executor executor;
    private final int maxBatch;
    private final int maxQueued;
    private final ConcurrentLinkedQueue<CourierApi.Report> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();

    Reporter(CourierApi courier, Executor executor, int maxBatch, int maxQueued) {
        this.courier = courier;
        this.executor = executor;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
    }

    void add(CourierApi.Report report) {
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            LOG.warning(() -> maxQueued + " reports waiting: the report on message " + report.messageId()
                    + " is dropped; Courier redelivers it after the delivery timeout");
            return;
        }
        queue.add(report);
        drain();
    }

    /** Reports waiting or on their way. */
    int waiting() {
        return queued.get();
    }

    private void drain() {
        if (!draining.compareAndSet(false, true)) {
            return; // the running drain takes it
        }
        try {
            executor.execute(this::run);
        } catch (RejectedExecutionException e) {
            draining.set(false);
            LOG.log(Level.WARNING, "the executor refused to send reports; Courier redelivers their messages after the "
                    + "delivery timeout", e);
        }
    }

    private void run() {
        try {
            List<CourierApi.Report> batch;
            while (!(batch = take()).isEmpty()) {
                send(batch);
            }
        } finally {
            draining.set(false);
            if (!queue.isEmpty()) {
                drain(); // a report came between the last take and the flag
            }
        }
    }

    private List<CourierApi.Report> take() {
        List<CourierApi.Report> batch = new ArrayList<>();
        CourierApi.Report r;
        while (batch.size() < maxBatch && (r = queue.poll()) != null) {
            batch.add(r);
        }
        return batch;
    }

    private void send(List<CourierApi.Report> batch) {
        try {
            List<String> refused = courier.report(batch);
            for (int i = 0; i < refused.size(); i++) {
                if (refused.get(i) != null) {
                    LOG.warning("Courier refused the report on message " + batch.get(i).messageId() + ": "
                            + refused.get(i));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, batch.size() + " reports to Courier failed; Courier redelivers their messages after "
                    + "the delivery timeout", e);
        } finally {
            queued.addAndGet(-batch.size());
        }
    }
}
