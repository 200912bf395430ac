package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Metrics;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A queue's traffic shows at {@code /metrics} in Prometheus text: counters of what committed, gauges of what it
 * holds (refreshed every second in the tests), gone with the queue; and {@code /metrics} is for admins only.
 */
@ExtendWith(ArquillianExtension.class)
class QueueMetricsIT {

    private final Http http = Http.server();
    private final Metrics metrics = new Metrics(http);
    private final String queue =
            "metrics_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void drop() {
        http.delete("api/queues/" + queue);
    }

    @Test
    void should_count_committed_traffic_and_gauge_what_the_queue_holds() {
        assertEquals(
                201, http.put("api/queues/" + queue, "{\"maxAttempts\": 1}").status());
        assertEquals(
                201,
                http.post(
                                "api/queues/" + queue + "/messages",
                                "[{\"payload\": 1}, {\"payload\": 2}, {\"payload\": 3}, {\"payload\": 4}]")
                        .status());
        assertEquals(
                201,
                http.post("api/queues/" + queue + "/messages", "{\"payload\": 5, \"delaySeconds\": 3600}")
                        .status());
        assertEquals(
                400,
                http.post("api/queues/" + queue + "/messages", "[{\"payload\": 6}, {}]")
                        .status(),
                "a refused batch sends nothing");
        JsonObject first = receive();
        JsonObject second = receive();
        assertEquals(
                204,
                http.delete("api/queues/" + queue + "/messages/" + first.getString("id") + "?leaseToken="
                                + first.getString("leaseToken"))
                        .status());
        assertEquals(
                204,
                http.post(
                                "api/queues/" + queue + "/messages/" + second.getString("id") + "/release",
                                "{\"leaseToken\": \"" + second.getString("leaseToken") + "\"}")
                        .status(),
                "one attempt: dead");

        assertEquals(5.0, value("courier_queue_sent_total"));
        assertEquals(2.0, value("courier_queue_received_total"));
        assertEquals(1.0, value("courier_queue_acked_total"));
        assertEquals(1.0, value("courier_queue_dead_total"));
        assertEquals(2.0, value("courier_queue_receive_seconds_count"), "two receives timed");
        Eventually.until(
                "the gauges refreshed",
                Duration.ofSeconds(10),
                () -> metrics.has("courier_queue_messages", "queue", queue, "state", "dead")
                        && value("courier_queue_messages", "state", "dead") == 1.0
                        && value("courier_queue_messages", "state", "ready") == 2.0);
        assertEquals(1.0, value("courier_queue_messages", "state", "delayed"), "the scheduled message");
        assertTrue(value("courier_queue_oldest_ready_age_seconds") >= 0.0);

        assertEquals(
                200,
                http.post("api/queues/" + queue + "/dead/replay", "{\"all\": true}")
                        .status());
        assertEquals(1.0, value("courier_queue_replayed_total"));

        assertEquals(204, http.delete("api/queues/" + queue).status());
        Eventually.until(
                "the gauges gone with the queue",
                Duration.ofSeconds(10),
                () -> !metrics.has("courier_queue_messages", "queue", queue, "state", "ready"));
    }

    @Test
    void should_serve_metrics_to_admins_only_and_over_https_only() {
        assertEquals(401, http.anonymous().httpsGet("metrics").status());
        assertEquals(403, http.as("producer").httpsGet("metrics").status());
        Http.Response scraped = http.httpsGet("metrics");
        assertEquals(200, scraped.status(), scraped::toString);
        assertTrue(scraped.contentType().startsWith("text/plain"), scraped.contentType());
        assertTrue(
                Metrics.find(scraped.body(), "jvm_uptime_seconds", Map.of()).isPresent(),
                "the JVM's metrics come along");
        assertEquals(302, http.get("metrics").status(), "plain HTTP is sent to HTTPS");
    }

    private JsonObject receive() {
        Http.Response received = http.post("api/queues/" + queue + "/receive", "{\"max\": 1}");
        assertEquals(200, received.status(), received::toString);
        return received.json().getJsonArray("messages").getJsonObject(0);
    }

    private double value(String metric, String... labels) {
        String[] all = new String[labels.length + 2];
        all[0] = "queue";
        all[1] = queue;
        System.arraycopy(labels, 0, all, 2, labels.length);
        return metrics.value(metric, all);
    }
}
