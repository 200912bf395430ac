package dev.courier.queue;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.Tag;

/**
 * What every queue holds now, as gauge readings: {@code courier_queue_messages{queue, state}} (state
 * {@code ready}: deliverable now; {@code delayed}: scheduled, leased or waiting out a backoff; {@code dead}),
 * {@code courier_queue_oldest_ready_age_seconds{queue}} (0 when nothing is due) and
 * {@code courier_queue_waiting_receivers{queue}} (on this server). One statement for all queues, reading
 * indexes only.
 */
@ApplicationScoped
public class QueueReadings {

    @Inject
    private Queues queues;

    @Inject
    private Waiters waiters;

    public Map<MetricID, Double> read() {
        Map<MetricID, Double> readings = new HashMap<>();
        for (QueueInfo info : queues.list()) {
            Tag queue = new Tag("queue", info.spec().name().value());
            Tag database = new Tag("database", info.database());
            readings.put(new MetricID("courier_queue_messages", queue, database, new Tag("state", "ready")), (double)
                    info.ready());
            readings.put(new MetricID("courier_queue_messages", queue, database, new Tag("state", "delayed")), (double)
                    (info.depth() - info.ready()));
            readings.put(new MetricID("courier_queue_messages", queue, database, new Tag("state", "dead")), (double)
                    info.dead());
            readings.put(
                    new MetricID("courier_queue_oldest_ready_age_seconds", queue, database),
                    info.oldestAge().map(age -> age.toMillis() / 1000.0).orElse(0.0));
            readings.put(new MetricID("courier_queue_waiting_receivers", queue, database), (double)
                    waiters.waiting(info.spec().name()));
        }
        return readings;
    }
}
