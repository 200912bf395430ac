package dev.courier.reliable;

import dev.courier.platform.AfterCommit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * What the reliable message service times and counts, per server, at {@code /metrics}:
 * {@code courier_subscriber_consume_latency_seconds{topic, subscriber}}, from a message's confirm (or its
 * delivery time, when later) to a subscriber's committed consumed report, and
 * {@code courier_producer_check_backs_total{producer, answer}}.
 */
@ApplicationScoped
class ReliableMeters {

    @Inject
    private MetricRegistry registry;

    @Inject
    private AfterCommit afterCommit;

    /** Times a consumed report once the transaction recording it commits. */
    void consumed(String topic, String subscriber, Duration sinceSent) {
        afterCommit.record(
                "courier.consumed." + topic + "." + subscriber,
                () -> new Duration[] {sinceSent},
                latest -> latest[0] = sinceSent,
                latest -> registry.timer(
                                "courier_subscriber_consume_latency",
                                new Tag("topic", topic),
                                new Tag("subscriber", subscriber))
                        .update(latest[0]));
    }

    /** Counts a check-back's answer: committed, rolled_back, pending, or failed (no answer). */
    void checkBack(String producer, String answer) {
        registry.counter("courier_producer_check_backs", new Tag("producer", producer), new Tag("answer", answer))
                .inc();
    }
}
