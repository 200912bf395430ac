package dev.courier.testing;

import dev.courier.client.CourierApi;
import dev.courier.client.CourierException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The helpers' calls to Courier, of which a test can make the next few confirms or reports get lost. */
public final class LossyCourierApi implements CourierApi {

    private volatile CourierApi real;
    private final AtomicInteger settlesToLose = new AtomicInteger();
    private final AtomicInteger reportsToLose = new AtomicInteger();
    private final AtomicInteger prepareAnswersToLose = new AtomicInteger();

    /** The next {@code n} prepares reach Courier, but their answers are lost on the way back. */
    public void losePrepareAnswers(int n) {
        prepareAnswersToLose.set(n);
    }

    public LossyCourierApi(CourierApi real) {
        this.real = real;
    }

    /** From now on the calls go through {@code transport} (HTTP, or in process). */
    public void over(CourierApi transport) {
        this.real = transport;
    }

    private volatile java.util.concurrent.CountDownLatch settleGate = new java.util.concurrent.CountDownLatch(0);

    /** Confirms and cancels wait until {@link #releaseSettles()} (30 s at most). */
    public void holdSettles() {
        settleGate = new java.util.concurrent.CountDownLatch(1);
    }

    public void releaseSettles() {
        settleGate.countDown();
    }

    private void passSettleGate() {
        try {
            settleGate.await(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next {@code n} confirms or cancels never reach Courier. */
    public void loseSettles(int n) {
        settlesToLose.set(n);
    }

    /** The next {@code n} consumed or failed reports never reach Courier. */
    public void loseReports(int n) {
        reportsToLose.set(n);
    }

    @Override
    public String prepare(
            String topic, String producer, String payloadJson, Map<String, String> headers, Duration checkBackAfter) {
        String id = real.prepare(topic, producer, payloadJson, headers, checkBackAfter);
        lose(prepareAnswersToLose); // stored in Courier, the answer lost
        return id;
    }

    @Override
    public void confirm(String messageId) {
        passSettleGate();
        lose(settlesToLose);
        real.confirm(messageId);
    }

    @Override
    public void cancel(String messageId) {
        passSettleGate();
        lose(settlesToLose);
        real.cancel(messageId);
    }

    @Override
    public void consumed(String messageId, String subscriber) {
        lose(reportsToLose);
        real.consumed(messageId, subscriber);
    }

    @Override
    public void failed(String messageId, String subscriber, String reason) {
        lose(reportsToLose);
        real.failed(messageId, subscriber, reason);
    }

    private final AtomicInteger settleBatches = new AtomicInteger();
    private final AtomicInteger batchedSettles = new AtomicInteger();

    /** A batch of confirms and cancels: held and lost as one call. */
    @Override
    public java.util.List<String> settle(java.util.List<Settle> settles) {
        passSettleGate();
        lose(settlesToLose);
        java.util.List<String> refused = real.settle(settles);
        settleBatches.incrementAndGet();
        batchedSettles.addAndGet(settles.size());
        return refused;
    }

    public int settleBatches() {
        return settleBatches.get();
    }

    public int batchedSettles() {
        return batchedSettles.get();
    }

    private final AtomicInteger batches = new AtomicInteger();
    private final AtomicInteger batchedReports = new AtomicInteger();

    @Override
    public java.util.List<String> report(java.util.List<Report> reports) {
        lose(reportsToLose);
        java.util.List<String> refused = real.report(reports);
        batches.incrementAndGet();
        batchedReports.addAndGet(reports.size());
        return refused;
    }

    public int batches() {
        return batches.get();
    }

    public int batchedReports() {
        return batchedReports.get();
    }

    private static void lose(AtomicInteger counter) {
        if (counter.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new CourierException(0, "lost on the way (test)", null);
        }
    }
}
