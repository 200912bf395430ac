package dev.courier.health;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * One dependency's probe, run at most once per window and its answer shared by every caller meanwhile: anonymous
 * callers of {@code /health/ready} cannot make Courier open a broker connection or a database round trip per
 * request. No caller waits for a probe: a due probe runs on {@code runner}, one at a time, and callers get the last
 * answer meanwhile, so a stalled dependency pins one thread, not one per readiness request. A probe still running
 * past the window counts as down (the dependency does not answer in time); a caller waits only for the very first
 * probe, and at most a window, as there is nothing to answer from before it. The answer says up or down and a
 * fixed reason, never the exception's text, which goes to the log when the dependency goes down. Each probe run is counted: {@code courier_health_probes_total{check}}.
 */
final class RecentProbe {

    /** The probe itself: returns when the dependency answered, throws (or returns false) when it did not. */
    @FunctionalInterface
    interface Probe {
        boolean answers() throws Exception;
    }

    private static final Logger LOG = Logger.getLogger(RecentProbe.class.getName());

    private final String check;
    private final String downReason;
    private final Probe probe;
    private final MetricRegistry registry;
    private final long windowNanos;
    private final Executor runner;

    private long probedAt;
    private long startedAt;
    private boolean running;
    private Boolean up; // null before the first probe answered
    private final CountDownLatch firstAnswer = new CountDownLatch(1);

    RecentProbe(
            String check, String downReason, Duration window, MetricRegistry registry, Executor runner, Probe probe) {
        this.check = check;
        this.downReason = downReason;
        this.probe = probe;
        this.registry = registry;
        this.windowNanos = window.toNanos();
        this.runner = runner;
    }

    /**
     * The check's answer: the last probe's, a new probe started when it is no longer recent. Only until the first
     * probe has answered does a caller wait, and at most one window: there is nothing to answer from before.
     */
    HealthCheckResponse response() {
        synchronized (this) { // held for bookkeeping only, never across a probe
            long now = System.nanoTime();
            if (!running && (up == null || now - probedAt >= windowNanos)) {
                running = true;
                startedAt = now;
                try {
                    runner.execute(this::run);
                } catch (RuntimeException e) { // no thread to run it on: try again at the next request
                    running = false;
                    LOG.log(Level.WARNING, "readiness: the " + check + " probe could not start: " + e);
                }
            }
        }
        if (firstAnswer.getCount() > 0) {
            try {
                firstAnswer.await(windowNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        boolean answer;
        synchronized (this) {
            boolean overdue = running && System.nanoTime() - startedAt >= windowNanos;
            answer = Boolean.TRUE.equals(up) && !overdue;
        }
        return answer
                ? HealthCheckResponse.named(check).up().build()
                : HealthCheckResponse.builder()
                        .name(check)
                        .down()
                        .withData("reason", downReason)
                        .build();
    }

    private void run() {
        boolean answered = probe();
        synchronized (this) {
            if (!answered && !Boolean.FALSE.equals(up)) {
                LOG.warning("readiness: " + check + " is DOWN (" + downReason + ")");
            } else if (answered && Boolean.FALSE.equals(up)) {
                LOG.info("readiness: " + check + " is UP again");
            }
            up = answered;
            probedAt = System.nanoTime();
            running = false;
        }
        firstAnswer.countDown();
    }

    private boolean probe() {
        registry.counter("courier_health_probes", new Tag("check", check)).inc();
        try {
            return probe.answers();
        } catch (Exception e) {
            LOG.log(Level.FINE, "readiness: the " + check + " probe failed", e);
            if (!Boolean.FALSE.equals(up)) {
                LOG.log(Level.WARNING, "readiness: the " + check + " probe failed: " + e);
            }
            return false;
        }
    }
}
