package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Metrics;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A reliable message's way shows at {@code /metrics}: check-back answers, and the gauges of each state it passes. */
@ExtendWith(ArquillianExtension.class)
class ReliableMetricsIT {

    private final Fixture f = new Fixture();
    private final Metrics metrics = new Metrics(f.http);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_count_check_back_answers_and_gauge_messages_and_deliveries_by_state() {
        f.register(f.producer, "COMMITTED").subscribe("a");
        Eventually.until("the new topic's gauges", Fixture.SETTLE,
                () -> metrics.has("courier_subscriber_deliveries", "topic", f.topic, "subscriber", "a", "state", "dead"));
        assertEquals(0.0, metrics.value("courier_producer_circuit_open", "producer", f.producer));

        String id = f.prepare("{\"n\": 1}", 60);
        Eventually.until("pending", Fixture.SETTLE,
                () -> metrics.value("courier_topic_messages", "topic", f.topic, "state", "pending") == 1.0
                        && metrics.value("courier_producer_pending_messages", "producer", f.producer) == 1.0);

        f.advance(61); // past its check-back time: the producer answers COMMITTED, and the message goes out
        f.awaitState(id, "SENT");
        assertEquals(1.0, metrics.value("courier_producer_check_backs_total", "producer", f.producer, "answer",
                "committed"));
        Eventually.until("in delivery", Fixture.SETTLE,
                () -> metrics.value("courier_topic_messages", "topic", f.topic, "state", "sent") == 1.0
                        && metrics.value("courier_subscriber_deliveries", "topic", f.topic, "subscriber", "a",
                                "state", "delivered") == 1.0
                        && metrics.value("courier_topic_messages", "topic", f.topic, "state", "pending") == 0.0);

        assertEquals("COMPLETED", f.http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"a\"}").json()
                .getString("state"));
        assertEquals(1.0, metrics.value("courier_subscriber_consume_latency_seconds_count", "topic", f.topic,
                "subscriber", "a"));
        Eventually.until("consumed", Fixture.SETTLE,
                () -> metrics.value("courier_subscriber_deliveries", "topic", f.topic, "subscriber", "a", "state",
                        "delivered") == 0.0 && metrics.value("courier_topic_messages", "topic", f.topic, "state",
                        "sent") == 0.0);
    }
}
