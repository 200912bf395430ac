package dev.courier.metrics;

import dev.courier.queue.QueueReadings;
import dev.courier.reliable.ReliableReadings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Refreshes the gauges every {@code courier.metrics.refresh-interval} (10 s): reads the queues' and reliable
 * messages' counts (a few index-only statements, whatever the number of messages) and publishes them, so a
 * scrape reads memory only. A gauge appears with the first reading that has it (a new queue, topic, subscriber
 * or producer) and goes with the first that has not (dropped). A failed refresh keeps the last values.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class GaugeRefresh {

    private static final Logger LOG = Logger.getLogger(GaugeRefresh.class.getName());

    @Resource
    private TimerService timers;

    @Inject
    private QueueReadings queues;

    @Inject
    private ReliableReadings reliable;

    @Inject
    private MetricRegistry registry;

    @Inject
    @ConfigProperty(name = "courier.metrics.refresh-interval", defaultValue = "PT10S")
    Duration interval;

    private PublishedGauges gauges;

    // Timers of a bean-managed singleton may overlap: a refresh slower than the interval is skipped, not doubled.
    private final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean();

    @PostConstruct
    void schedule() {
        gauges = new PublishedGauges(registry);
        timers.createIntervalTimer(interval.toMillis(), interval.toMillis(), new TimerConfig("courier.metrics", false));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void onTimer() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "refreshing the gauges failed; they keep their last values", e);
        } finally {
            running.set(false);
        }
    }

    /** Reads and publishes every gauge now. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void refresh() {
        Map<MetricID, Double> readings = new HashMap<>(queues.read());
        readings.putAll(reliable.read());
        gauges.publish(readings);
    }
}
