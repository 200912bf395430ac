package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Metrics;
import java.time.Duration;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A reliable message's way shows at {@code /metrics}: check-back answers, and the gauges of each state it passes. */
@ExtendWith(ArquillianExtension.class)
class ReliableMetricsIT {

    private final Fixture f = new Fixture();
    private final Metrics metrics = new Metrics();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_count_check_back_answers_and_gauge_messages_and_deliveries_by_state() {
        f.register(f.producer, "COMMITTED").subscribe("a");
        Eventually.until(
                "the new topic's gauges",
                Fixture.SETTLE,
                () -> metrics.has(
                        "courier_subscriber_deliveries", "topic", f.topic, "subscriber", "a", "state", "dead"));
        assertEquals(0.0, metrics.value("courier_producer_circuit_open", "producer", f.producer));

        String id = f.prepare("{\"n\": 1}", 60);
        Eventually.until(
                "pending",
                Fixture.SETTLE,
                () -> metrics.value("courier_topic_messages", "topic", f.topic, "state", "pending") == 1.0
                        && metrics.value("courier_producer_pending_messages", "producer", f.producer) == 1.0);

        f.advance(61); // past its check-back time: the producer answers COMMITTED, and the message goes out
        f.awaitState(id, "SENT");
        // Each answer counts: at least this message's one (a round that asks the same message again, seen once in a
        // full CI run on Derby right after a broker restart, counts a second COMMITTED).
        assertTrue(metrics.value("courier_producer_check_backs_total", "producer", f.producer, "answer", "committed")
                >= 1.0);
        Eventually.until(
                "in delivery",
                Fixture.SETTLE,
                () -> metrics.value("courier_topic_messages", "topic", f.topic, "state", "sent") == 1.0
                        && metrics.value(
                                        "courier_subscriber_deliveries",
                                        "topic",
                                        f.topic,
                                        "subscriber",
                                        "a",
                                        "state",
                                        "delivered")
                                == 1.0
                        && metrics.value("courier_topic_messages", "topic", f.topic, "state", "pending") == 0.0);

        assertEquals(
                "COMPLETED",
                f.http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"a\"}")
                        .json()
                        .getString("state"));
        assertEquals(
                1.0,
                metrics.value("courier_subscriber_consume_latency_seconds_count", "topic", f.topic, "subscriber", "a"));
        Eventually.until(
                "consumed",
                Fixture.SETTLE,
                () -> metrics.value(
                                        "courier_subscriber_deliveries",
                                        "topic",
                                        f.topic,
                                        "subscriber",
                                        "a",
                                        "state",
                                        "delivered")
                                == 0.0
                        && metrics.value("courier_topic_messages", "topic", f.topic, "state", "sent") == 0.0);
    }

    @Test
    void should_gauge_the_relays_backlog_while_the_broker_is_down_and_empty_it_once_the_broker_is_back() {
        f.register(f.producer, "COMMITTED").subscribe("a");
        Eventually.until(
                "the relay's gauge at rest",
                Fixture.SETTLE,
                () -> metrics.has("courier_relay_outbox_entries")
                        && metrics.value("courier_relay_outbox_entries") == 0.0);
        String id = f.prepare("{\"n\": 2}", 60);
        Broker.stop();
        try {
            assertEquals(200, f.http.post("api/messages/" + id + "/confirm", "").status(), "a confirm needs no broker");
            Eventually.until(
                    "the copy waits in the outbox",
                    Fixture.SETTLE,
                    () -> metrics.value("courier_relay_outbox_entries") == 1.0);
            Eventually.until(
                    "the oldest entry's wait grows while nothing leaves the outbox",
                    Fixture.SETTLE,
                    () -> metrics.value("courier_relay_oldest_entry_seconds") >= 2.0);
        } finally {
            Broker.start();
        }
        Eventually.until(
                "the relay published it",
                Duration.ofSeconds(60),
                () -> metrics.value("courier_relay_outbox_entries") == 0.0);
        Eventually.until(
                "no entry waits", Fixture.SETTLE, () -> metrics.value("courier_relay_oldest_entry_seconds") == 0.0);
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"));
    }
}
