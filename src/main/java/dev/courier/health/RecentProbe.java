package dev.courier.health;

import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * One dependency's probe, run at most once per window and its answer shared by every caller meanwhile: anonymous
 * callers of {@code /health/ready} cannot make Courier open a broker connection or a database round trip per
 * request. The answer says up or down and a fixed reason, never the exception's text, which goes to the log when
 * the dependency goes down. Each probe run is counted: {@code courier_health_probes_total{check}}.
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

    private long probedAt;
    private Boolean up; // null before the first probe

    RecentProbe(String check, String downReason, Duration window, MetricRegistry registry, Probe probe) {
        this.check = check;
        this.downReason = downReason;
        this.probe = probe;
        this.registry = registry;
        this.windowNanos = window.toNanos();
    }

    /** The check's answer: from the last probe while it is recent, else from a new one (one caller runs it). */
    synchronized HealthCheckResponse response() {
        long now = System.nanoTime();
        if (up == null || now - probedAt >= windowNanos) {
            boolean answered = probe();
            if (!answered && !Boolean.FALSE.equals(up)) {
                LOG.warning("readiness: " + check + " is DOWN (" + downReason + ")");
            } else if (answered && Boolean.FALSE.equals(up)) {
                LOG.info("readiness: " + check + " is UP again");
            }
            up = answered;
            probedAt = System.nanoTime();
        }
        return up
                ? HealthCheckResponse.named(check).up().build()
                : HealthCheckResponse.builder()
                        .name(check)
                        .down()
                        .withData("reason", downReason)
                        .build();
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
