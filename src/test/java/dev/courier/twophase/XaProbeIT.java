package dev.courier.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Metrics;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The XA slice end to end, from outside the server: a JPA row and a JMS message in one XA transaction.
 * Every outcome is checked on both sides: the database (through the API) and the broker's own counters.
 */
@ExtendWith(ArquillianExtension.class)
class XaProbeIT {

    private static final String QUEUE = "courier.xa.probe";
    private static final Duration DELIVERY = Duration.ofSeconds(30);
    /** Long enough for a message that was (wrongly) sent to reach the broker and the listener. */
    private static final Duration QUIET = Duration.ofSeconds(3);

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void disarm() {
        http.delete("api/test/faults");
    }

    @Test
    void should_commit_row_and_message_together() {
        long before = Broker.messagesAdded(QUEUE);
        String body = unique("commit");

        Http.Response created = http.post("api/twophase/probes", json(body));

        assertEquals(201, created.status(), created::toString);
        String id = created.json().getString("id");
        JsonObject receipt = awaitReceipt(id);
        assertEquals(body, receipt.getString("body"), "the listener saw exactly the message sent");
        assertEquals(1, receipt.getInt("deliveryCount"));
        assertEquals(before + 1, Broker.messagesAdded(QUEUE), "exactly one message reached the broker");
    }

    @Test
    void should_process_a_duplicate_delivery_of_the_same_record_once() throws Exception {
        Http.Response created = http.post("api/twophase/probes", json(unique("duplicate")));
        String id = created.json().getString("id");
        JsonObject original = awaitReceipt(id);
        long before = Broker.messagesAdded(QUEUE);

        Broker.sendText(QUEUE, "a second copy", XaProbe.RECORD_ID, id); // as if the broker delivered twice

        Eventually.until(
                "the copy consumed",
                DELIVERY,
                () -> Broker.messageCount(QUEUE) == 0 && Broker.messagesAdded(QUEUE) == before + 1);
        JsonObject receipt = http.get("api/twophase/probes/" + id).json().getJsonObject("receipt");
        assertEquals(original.getString("messageId"), receipt.getString("messageId"), "the first receipt stands");
        assertEquals(original.getString("body"), receipt.getString("body"));
    }

    @Test
    void should_count_committed_and_rolled_back_transactions_at_metrics() {
        Metrics metrics = new Metrics();
        double committed = count(metrics, "committed");
        double rolledBack = count(metrics, "rolled_back");

        assertEquals(
                201, http.post("api/twophase/probes", json(unique("counted"))).status());
        http.post("api/test/faults/" + XaProbe.AFTER_SEND, "");
        assertEquals(
                500, http.post("api/twophase/probes", json(unique("counted"))).status());

        assertEquals(committed + 1, count(metrics, "committed"));
        assertEquals(rolledBack + 1, count(metrics, "rolled_back"));
    }

    private static double count(Metrics metrics, String outcome) {
        return metrics.has("courier_xa_transactions_total", "use", "probe", "outcome", outcome)
                ? metrics.value("courier_xa_transactions_total", "use", "probe", "outcome", outcome)
                : 0;
    }

    @Test
    void should_leave_neither_row_nor_message_when_the_bean_throws_after_sending() {
        http.post("api/test/faults/" + XaProbe.AFTER_SEND, "");
        long before = Broker.messagesAdded(QUEUE);

        String body = unique("throws");

        Http.Response failed = http.post("api/twophase/probes", json(body));

        assertEquals(500, failed.status(), failed::toString);
        assertEquals("application/problem+json", failed.contentType());
        assertFalse(failed.body().contains("InjectedFault"), "no exception leaks to the caller");
        assertEquals(0, recordsWithBody(body), "the row was rolled back");
        assertNothingReachedTheBroker(before);
    }

    @Test
    void should_leave_neither_row_nor_message_when_the_caller_sets_rollback_only() {
        long before = Broker.messagesAdded(QUEUE);

        Http.Response response = http.post(
                "api/test/probes/rollback-only?body="
                        + URLEncoder.encode(unique("rollback-only"), StandardCharsets.UTF_8),
                "");

        assertEquals(200, response.status(), response::toString);
        String id = response.json().getString("id");
        assertEquals(404, http.get("api/twophase/probes/" + id).status(), "the row was rolled back");
        assertNothingReachedTheBroker(before);
    }

    @Test
    void should_redeliver_the_message_when_the_listener_fails() {
        http.post("api/test/faults/" + XaProbeListener.BEFORE_RECEIPT + "?times=1", "");
        String body = unique("redeliver");

        Http.Response created = http.post("api/twophase/probes", json(body));

        assertEquals(201, created.status(), created::toString);
        JsonObject receipt = awaitReceipt(created.json().getString("id"));
        assertEquals(body, receipt.getString("body"));
        assertEquals(2, receipt.getInt("deliveryCount"), "first delivery failed and rolled back, second processed");
    }

    private void assertNothingReachedTheBroker(long before) {
        sleep(QUIET);
        assertEquals(before, Broker.messagesAdded(QUEUE), "the broker never received the rolled-back message");
    }

    private long recordsWithBody(String body) {
        Http.Response count = http.get("api/test/probes/count?body=" + URLEncoder.encode(body, StandardCharsets.UTF_8));
        assertEquals(200, count.status(), count::toString);
        return count.json().getJsonNumber("count").longValue();
    }

    private JsonObject awaitReceipt(String id) {
        return Eventually.await("receipt of " + id, DELIVERY, () -> {
            Http.Response record = http.get("api/twophase/probes/" + id);
            assertEquals(200, record.status(), record::toString);
            JsonObject json = record.json();
            return json.isNull("receipt") ? Optional.empty() : Optional.of(json.getJsonObject("receipt"));
        });
    }

    private static String json(String body) {
        return Json.createObjectBuilder().add("body", body).build().toString();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
