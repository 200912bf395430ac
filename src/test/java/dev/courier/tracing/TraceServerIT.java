package dev.courier.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.DatabaseIndependent;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import dev.courier.testing.SpanCollector;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Courier with tracing on, as an operator turns it on: MicroProfile Telemetry's SDK enabled through the standard
 * {@code OTEL_*} variables, spans exported to a Zipkin collector that this test runs. A caller's W3C
 * {@code traceparent} goes in with a send or an order; the test then finds, in the one trace, the producer span
 * stored with the message and the consumer span that is its child: across the queue (send → receive) and across
 * the broker (prepare → publish → the subscriber's process span, made by {@code ReliableConsumer}).
 */
@DatabaseIndependent
class TraceServerIT {

    private static final Duration EXPORTED = Duration.ofSeconds(30);

    private static SpanCollector collector;
    private static LibertyProcess server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        collector = new SpanCollector();
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080"));
        server = new LibertyProcess("courier-trace", port + 5, port + 6)
                .environment("OTEL_SDK_DISABLED", "false")
                .environment("OTEL_SERVICE_NAME", "courier")
                .environment("OTEL_TRACES_EXPORTER", "zipkin")
                .environment("OTEL_EXPORTER_ZIPKIN_ENDPOINT", collector.endpoint())
                .environment("OTEL_METRICS_EXPORTER", "none")
                .environment("OTEL_LOGS_EXPORTER", "none")
                .environment("OTEL_BSP_SCHEDULE_DELAY", "200")
                // the scenario's services call this server, not the test run's
                .environment("COURIER_SCENARIO_COURIER_URL", "http://localhost:" + (port + 5) + "/")
                // the reply as a second reliable message, whose spans the trace must carry on
                .environment("COURIER_SCENARIO_RMS_REPLY", "reliable");
        LibertyProcess.startAll(server);
        http = server.http();
    }

    @AfterAll
    static void stop() throws Exception {
        LibertyProcess.stopAll(server);
        if (collector != null) {
            collector.close();
        }
    }

    @Test
    void a_receive_is_the_child_of_the_send_that_stored_the_message() {
        String queue = "traced_" + Long.toHexString(System.nanoTime());
        assertEquals(201, http.put("api/queues/" + queue, "{}").status());
        try {
            String trace = hex(16);
            Http.Response sent = http.send(HttpRequest.newBuilder(http.uri("api/queues/" + queue + "/messages"))
                    .header("Content-Type", "application/json")
                    .header("traceparent", "00-" + trace + "-" + hex(8) + "-01")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"payload\": {\"n\": 1}}")));
            assertEquals(201, sent.status(), sent::toString);
            Http.Response received = http.post("api/queues/" + queue + "/receive", "{\"max\": 1}");
            assertEquals(200, received.status(), received::toString);
            JsonObject delivery = received.json().getJsonArray("messages").getJsonObject(0);

            JsonObject send = span(trace, "send " + queue, "PRODUCER");
            JsonObject receive = span(trace, "receive " + queue, "CONSUMER");
            assertEquals(
                    send.getString("id"), receive.getString("parentId"), "the receive continues the send: " + receive);
            assertEquals(sent.json().getString("id"), send.getJsonObject("tags").getString("messaging.message.id"));
            // The receiver is handed the receive span's context, to go on with the trace in its own work.
            assertEquals(
                    "00-" + trace + "-" + receive.getString("id") + "-01",
                    delivery.getJsonObject("headers").getString("traceparent"),
                    delivery::toString);
        } finally {
            http.delete("api/queues/" + queue);
        }
    }

    @Test
    void a_subscribers_process_span_is_the_child_of_the_publish_that_continued_the_prepare() {
        Eventually.until(
                "the rms mode set up",
                EXPORTED,
                () -> http.post("lab-orders/api/orders?mode=rms", "").status() == 201);
        String trace = hex(16);
        Http.Response placed = http.send(HttpRequest.newBuilder(http.uri("lab-orders/api/orders?mode=rms"))
                .header("traceparent", "00-" + trace + "-" + hex(8) + "-01")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(201, placed.status(), placed::toString);

        JsonObject prepare = span(trace, "send scenario-orders", "PRODUCER");
        JsonObject publish = span(trace, "publish scenario-orders", "PRODUCER");
        JsonObject process = span(trace, "process scenario-orders", "CONSUMER");
        assertEquals(prepare.getString("id"), publish.getString("parentId"), "the publish continues the prepare");
        assertEquals(publish.getString("id"), process.getString("parentId"), "the subscriber continues the publish");
        assertEquals("inventory", process.getJsonObject("tags").getString("messaging.consumer.group.name"));
        // The inventory service's reply, prepared while it processed the order, goes on in the same trace to the
        // orders service that settles the order.
        JsonObject replied = span(trace, "send scenario-replies", "PRODUCER");
        JsonObject settled = span(trace, "process scenario-replies", "CONSUMER");
        assertEquals("orders", settled.getJsonObject("tags").getString("messaging.consumer.group.name"));
        assertTrue(
                Long.parseLong(replied.get("timestamp").toString())
                        >= Long.parseLong(process.get("timestamp").toString()),
                "the reply was prepared while the order was processed");
    }

    @Test
    void a_prepare_with_all_its_headers_is_traced_and_a_confirm_with_new_headers_keeps_the_trace() {
        String name = "traced-" + Long.toHexString(System.nanoTime());
        registerProducer(name);
        assertEquals(
                201,
                http.post("api/topics/" + name + "/subscribers", "{\"name\": \"audit\"}")
                        .status());
        StringBuilder headers = new StringBuilder();
        for (int i = 0; i < 32; i++) { // the most a caller may give: the trace header is Courier's, on top
            headers.append(i == 0 ? "" : ", ").append("\"h").append(i).append("\": \"v\"");
        }
        String trace = hex(16);
        Http.Response prepared = http.send(HttpRequest.newBuilder(http.uri("api/messages"))
                .header("Content-Type", "application/json")
                .header("traceparent", "00-" + trace + "-" + hex(8) + "-01")
                .POST(HttpRequest.BodyPublishers.ofString("{\"topic\": \"" + name + "\", \"producer\": \"" + name
                        + "\", \"payload\": {\"n\": 1}, \"headers\": {" + headers + "}}")));
        assertEquals(201, prepared.status(), "tracing on does not push a prepare over the header limit: " + prepared);
        String id = prepared.json().getString("id");
        Http.Response confirmed = http.post("api/messages/" + id + "/confirm", "{\"headers\": {\"final\": \"yes\"}}");
        assertEquals(200, confirmed.status(), confirmed::toString);

        JsonObject prepare = span(trace, "send " + name, "PRODUCER");
        JsonObject publish = span(trace, "publish " + name, "PRODUCER");
        assertEquals(
                prepare.getString("id"),
                publish.getString("parentId"),
                "the confirm's own headers left out traceparent: the publish goes on from the prepare");
    }

    @Test
    void a_prepare_refused_for_a_topic_without_subscribers_leaves_a_send_span_marked_as_an_error() {
        String name = "untraced-" + Long.toHexString(System.nanoTime());
        registerProducer(name);
        String trace = hex(16);
        Http.Response refused = http.send(HttpRequest.newBuilder(http.uri("api/messages"))
                .header("Content-Type", "application/json")
                .header("traceparent", "00-" + trace + "-" + hex(8) + "-01")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"topic\": \"" + name + "\", \"producer\": \"" + name + "\", \"payload\": {\"n\": 1}}")));
        assertEquals(404, refused.status(), refused::toString);

        JsonObject send = span(trace, "send " + name, "PRODUCER");
        JsonObject tags = send.getJsonObject("tags");
        assertEquals("ERROR", tags.getString("otel.status_code", ""), "no message was stored: " + send);
        assertTrue(tags.getString("error", "").contains("topic"), send::toString);
    }

    /** Registers producer {@code name}, checked back at the demo's check-back of the same name. */
    private void registerProducer(String name) {
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080")) + 5;
        assertEquals(
                201,
                http.post(
                                "api/producers",
                                "{\"name\": \"" + name + "\", \"checkBackUrl\": " + "\"http://localhost:" + port
                                        + "/api/scenario/check-back/" + name + "\"}")
                        .status());
    }

    /** The one span of {@code trace} with this name and kind, once exported. */
    private static JsonObject span(String trace, String name, String kind) {
        return Eventually.await(name + " exported in trace " + trace, EXPORTED, () -> {
            List<JsonObject> found = collector.trace(trace).stream()
                    .filter(s -> name.equalsIgnoreCase(s.getString("name", "")) && kind.equals(s.getString("kind", "")))
                    .toList();
            assertTrue(found.size() <= 1, "one span " + name + ": " + found);
            return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
        });
    }

    private static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
