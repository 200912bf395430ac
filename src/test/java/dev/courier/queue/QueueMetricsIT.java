package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Metrics;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
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
    private final Metrics metrics = new Metrics();
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
    void should_serve_metrics_on_the_management_port_and_take_no_password_on_the_api_ports() {
        Http.Response scraped = Http.management().get("metrics");
        assertEquals(200, scraped.status(), scraped::toString);
        assertTrue(scraped.contentType().startsWith("text/plain"), scraped.contentType());
        assertTrue(
                Metrics.find(scraped.body(), "jvm_uptime_seconds", Map.of()).isPresent(),
                "the JVM's metrics come along");
        // On the API ports no /metrics checks a password, so none answers apart from the others (issue 26).
        List<String> callers = new java.util.ArrayList<>(
                List.of(http.authorization(), http.as("producer").authorization(), Http.basic("admin", "wrong")));
        callers.add(null);
        for (String authorization : callers) {
            assertEquals(
                    404, Http.httpsGet("localhost", "metrics", authorization).status());
            java.net.http.HttpRequest.Builder plain = java.net.http.HttpRequest.newBuilder(http.uri("metrics"));
            if (authorization != null) {
                plain.header("Authorization", authorization);
            }
            assertEquals(404, http.anonymous().send(plain).status());
        }
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
