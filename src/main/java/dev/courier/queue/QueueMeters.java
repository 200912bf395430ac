package dev.courier.queue;

import dev.courier.platform.AfterCommit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * Counts what happens to a queue's messages, per queue, in the application registry ({@code /metrics}:
 * {@code courier_queue_<event>_total{queue}}). A count is added when the transaction that did it commits, so a
 * rolled-back send or receive is not counted; per server (Prometheus sums the servers).
 */
@ApplicationScoped
class QueueMeters {

    /** The events counted; the metric is {@code courier_queue_<name>_total}. */
    enum Event {
        /** Messages sent (idempotent repeats not counted). */
        SENT,
        /** Leases handed out (a message received again counts again). */
        RECEIVED,
        /** Messages acknowledged through a call that names the queue (REST, or the Java API's queue overloads). */
        ACKED,
        /** Leases found expired when their message was claimed again, or swept. */
        EXPIRED,
        /** Messages that became dead: attempts used up. */
        DEAD,
        /** Dead messages replayed. */
        REPLAYED;

        String metric() {
            return "courier_queue_" + name().toLowerCase(Locale.ROOT);
        }
    }

    @Inject
    private MetricRegistry registry;

    @Inject
    private AfterCommit afterCommit;

    // The registry's own lookup validates the tags on every call (a twelfth of a queue request's CPU in a
    // profile, issue 11); a metric, once made, is the same object for the life of the registry.
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<QueueName, Timer> receiveTimers = new ConcurrentHashMap<>();

    /** Adds {@code count} to {@code event} of {@code queue} once the current transaction commits (now without one). */
    void onCommit(Event event, QueueName queue, int count) {
        if (count > 0) {
            // A tally per event and queue in the transaction: added to, in place, by every call until it commits.
            afterCommit.record(
                    "courier.meter." + event + "." + queue.value(),
                    () -> new int[1],
                    tally -> tally[0] += count,
                    tally -> add(event, queue, tally[0]));
        }
    }

    /** {@code courier_queue_receive_seconds{queue}}: how long a claim took (one receive, or one poll of a wait). */
    void receiveTook(QueueName queue, long nanos) {
        receiveTimers
                .computeIfAbsent(queue, q -> registry.timer("courier_queue_receive", new Tag("queue", q.value())))
                .update(Duration.ofNanos(nanos));
    }

    private void add(Event event, QueueName queue, int count) {
        counters.computeIfAbsent(
                        event.metric() + "\u0000" + queue.value(),
                        key -> registry.counter(event.metric(), new Tag("queue", queue.value())))
                .inc(count);
    }
}
