package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/** What the reliable message tests do over HTTP: register, subscribe, place orders, consume, watch states. */
final class Fixture {

    static final Duration SETTLE = Duration.ofSeconds(30);

    final Http http = Http.server();
    final String producer = unique("p");
    final String topic;

    Fixture() {
        this(unique("t"));
    }

    /** A fixture on an existing topic (one the test MDBs consume). */
    Fixture(String topic) {
        this.topic = topic;
    }

    static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    static String base() {
        return "http://localhost:" + System.getProperty("it.http.port", "19080") + "/";
    }

    Fixture register(String name, String mode) {
        http.put("api/test/apps/" + name + "/mode/" + mode, "");
        Http.Response registered = http.post(
                "api/producers",
                "{\"name\": \"" + name + "\", \"checkBackUrl\": \"" + base()
                        + "api/test/apps/" + name + "/check-back\", \"notificationUrl\": \"" + base() + "api/test/apps/"
                        + name
                        + "/notifications\"}");
        assertEquals(201, registered.status(), registered::toString);
        // The test upstream checks every call Courier makes to it against the secret, as a producer should.
        assertEquals(
                204,
                http.put("api/test/apps/" + name + "/secret", registered.json().getString("signingSecret"))
                        .status());
        return this;
    }

    Fixture subscribe(String... subscribers) {
        return subscribe(30, 10, subscribers);
    }

    Fixture subscribe(double timeoutSeconds, int retryLimit, String... subscribers) {
        for (String s : subscribers) {
            Http.Response added = http.post(
                    "api/topics/" + topic + "/subscribers",
                    "{\"name\": \"" + s + "\", \"deliveryTimeoutSeconds\": " + timeoutSeconds + ", \"retryLimit\": "
                            + retryLimit + "}");
            assertEquals(201, added.status(), added::toString);
        }
        return this;
    }

    /** Prepares over REST as an external producer would. @return the message id */
    String prepare(String payload, double checkBackSeconds) {
        Http.Response prepared = http.post(
                "api/messages",
                "{\"topic\": \"" + topic + "\", \"producer\": \"" + producer + "\", \"payload\": " + payload
                        + ", \"checkBackSeconds\": " + checkBackSeconds + "}");
        assertEquals(201, prepared.status(), prepared::toString);
        assertEquals("PENDING", prepared.json().getString("state"));
        return prepared.json().getString("id");
    }

    /** Places an order through the producer helper. @return the order's JSON: order, messageId (or error) */
    JsonObject order(String query) {
        Http.Response placed = http.post("api/test/apps/" + producer + "/orders?topic=" + topic + query, "");
        assertEquals(200, placed.status(), placed::toString);
        return placed.json();
    }

    int orders(String messageId) {
        return http.get("api/test/apps/orders/count?messageId=" + messageId)
                .json()
                .getInt("count");
    }

    /** Every order row of the test application, of every test so far. */
    int allOrders() {
        return http.get("api/test/apps/orders/count").json().getInt("count");
    }

    int effects(String messageId, String subscriber) {
        return http.get("api/test/apps/effects?messageId=" + messageId + "&subscriber=" + subscriber)
                .json()
                .getInt("count");
    }

    /** Lets the downstream worker of {@code subscriber} take one message. @return its JSON, empty when none came */
    Optional<JsonObject> consume(String subscriber, boolean fail) {
        return consume(subscriber, fail, false);
    }

    /** @param batched through a consumer helper that reports in batches after commit (the helper's default) */
    Optional<JsonObject> consume(String subscriber, boolean fail, boolean batched) {
        Http.Response consumed = http.post(
                "api/test/apps/downstream/" + topic + "/" + subscriber + "?fail=" + fail + "&batched=" + batched, "");
        return consumed.status() == 204 ? Optional.empty() : Optional.of(consumed.json());
    }

    JsonObject message(String id) {
        Http.Response message = http.get("api/messages/" + id);
        assertEquals(200, message.status(), message::toString);
        return message.json();
    }

    String state(String id) {
        return message(id).getString("state");
    }

    Map<String, String> deliveries(String id) {
        return message(id).getJsonArray("deliveries").getValuesAs(JsonObject.class).stream()
                .collect(Collectors.toMap(d -> d.getString("subscriber"), d -> d.getString("state")));
    }

    JsonObject delivery(String id, String subscriber) {
        return message(id).getJsonArray("deliveries").getValuesAs(JsonObject.class).stream()
                .filter(d -> d.getString("subscriber").equals(subscriber))
                .findFirst()
                .orElseThrow();
    }

    String awaitState(String id, String state) {
        Eventually.until("message " + id + " " + state, SETTLE, () -> state.equals(state(id)));
        return state;
    }

    void advance(double seconds) {
        assertEquals(
                204, http.post("api/test/clock/advance?seconds=" + seconds, "").status());
    }

    JsonObject upstream(String name) {
        return http.get("api/test/apps/" + name).json();
    }

    void lose(int settles, int reports) {
        http.post("api/test/apps/lose?settles=" + settles + "&reports=" + reports, "");
    }

    void arm(String point) {
        assertEquals(204, http.post("api/test/faults/" + point, "").status());
    }

    static String queue(String topic, String subscriber) {
        return topic + "::" + topic + "." + subscriber;
    }
}
