package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.ProductionDatabaseOnly;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The downstream failure table of the seed (steps 1–5 between the broker, the consumer and Courier), one test per
 * row, and a subscriber that always fails. Each asserts the consumer's business rows (one effect per message and
 * subscriber, however often it arrived), the ledger and what the broker carried.
 */
@ProductionDatabaseOnly
@ExtendWith(ArquillianExtension.class)
class DownstreamFailureIT {

    private final Fixture f = new Fixture();
    private final Http http = f.http;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void disarm() {
        http.delete("api/test/faults");
        f.lose(0, 0);
    }

    @Test
    void row1_a_subscriber_that_never_got_the_message_gets_it_again_alone() {
        f.register(f.producer, "BARRIER").subscribe(30, 10, "fast", "slow");
        String id = f.order("").getString("messageId");
        assertEquals(id, f.consume("fast", false).orElseThrow().getString("id"));
        assertTrue(
                Broker.receive(Fixture.queue(f.topic, "slow"), java.time.Duration.ofSeconds(5))
                        .isPresent(),
                "the slow subscriber's copy is lost (taken off its queue, never processed)");

        f.advance(31); // past the delivery timeout

        Eventually.until("redelivered to slow", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".slow") == 2);
        assertEquals(1, Broker.messagesAdded(f.topic + ".fast"), "the subscriber that reported gets nothing again");
        JsonObject again = f.consume("slow", false).orElseThrow();
        assertEquals(id, again.getString("id"));
        f.awaitState(id, "COMPLETED");
        assertEquals(2, f.delivery(id, "slow").getInt("attempts"));
        assertEquals(1, f.effects(id, "slow"));
        assertEquals(1, f.effects(id, "fast"));
    }

    @Test
    void row2_a_failing_consumer_rolls_back_reports_failure_and_processes_the_redelivery_once() {
        f.register(f.producer, "BARRIER").subscribe("a");
        String id = f.order("").getString("messageId");

        JsonObject failed = f.consume("a", true).orElseThrow();

        assertTrue(failed.containsKey("error"), failed::toString);
        assertEquals(0, f.effects(id, "a"), "the failed effect rolled back");
        Eventually.until(
                "the failure reported",
                Fixture.SETTLE,
                () -> f.delivery(id, "a").getString("lastError", "").startsWith("failed:"));
        f.advance(5); // past the redelivery backoff
        // The rolled-back receive put the copy back in the queue: Courier sees it there and adds none.
        Eventually.until("the deadline moved", Fixture.SETTLE, () -> moved(id, "a") >= 1);
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"), "no copy from Courier beside the broker's own");
        assertEquals(List.of(true), consumeAll("a"), "the broker's redelivery, processed once");
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, "a"));
    }

    @Test
    void a_consumer_reporting_in_batches_completes_every_message_and_reports_a_failure() {
        f.register(f.producer, "BARRIER").subscribe(30, 10, "a");
        JsonObject before = http.get("api/test/apps/reports").json();
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(f.order("").getString("messageId"));
        }
        for (int i = 0; i < 5; i++) {
            assertTrue(f.consume("a", false, true).orElseThrow().getBoolean("processed"));
        }
        for (String id : ids) {
            f.awaitState(id, "COMPLETED");
        }
        // The ledger commits before the helper's call returns and counts: wait for the count, not only the state.
        Eventually.until(
                "every report went through the batch call",
                Fixture.SETTLE,
                () -> http.get("api/test/apps/reports").json().getInt("reports") - before.getInt("reports") >= 5);
        JsonObject after = http.get("api/test/apps/reports").json();
        assertEquals(5, after.getInt("reports") - before.getInt("reports"), "every report went through the batch call");
        int batches = after.getInt("batches") - before.getInt("batches");
        assertTrue(batches >= 1 && batches <= 5, batches + " calls");

        String failing = f.order("").getString("messageId");
        f.consume("a", true, true);
        Eventually.until(
                "the failure reported",
                Fixture.SETTLE,
                () -> f.delivery(failing, "a").getString("lastError", "").startsWith("failed:"));
        assertEquals(0, f.effects(failing, "a"), "the failed effect rolled back");
    }

    @Test
    void a_subscriber_added_while_a_confirmed_message_waits_for_the_relay_gets_no_copy_of_it() {
        f.register(f.producer, "BARRIER").subscribe(30, 10, "a");
        // The relay fails before publishing a few times (about 1.5 s of retries): the confirmed message waits.
        assertEquals(
                204,
                http.post("api/test/faults/reliable.relay.before-publish?times=4", "")
                        .status());
        String id = f.order("").getString("messageId");
        assertEquals("SENT", f.state(id));
        f.subscribe(30, 10, "b"); // its queue and row exist before the relay sends the message

        Eventually.until("relayed", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".a") == 1);
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        f.awaitState(id, "COMPLETED");
        assertEquals(Map.of("a", "CONSUMED"), f.deliveries(id), "b has no delivery of a message confirmed before it");
        assertEquals(0, Broker.messagesAdded(f.topic + ".b"), "and no copy of it");

        String later = f.order("").getString("messageId");
        Eventually.until("the next message reaches b", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".b") == 1);
        assertEquals(Map.of("a", "DELIVERED", "b", "DELIVERED"), f.deliveries(later));
    }

    @Test
    void a_backlog_longer_than_the_delivery_timeout_gets_no_further_copies_and_nothing_dies() {
        f.register(f.producer, "BARRIER").subscribe(2, 1, "slow");
        List<String> ids = List.of(
                f.order("").getString("messageId"),
                f.order("").getString("messageId"),
                f.order("").getString("messageId"));
        Eventually.until("relayed", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".slow") == 3);

        for (int round = 1; round <= 3; round++) { // three timeouts pass while the copies wait in the queue
            f.advance(3);
            int expected = round;
            Eventually.until(
                    "deadlines moved " + round + " times",
                    Fixture.SETTLE,
                    () -> ids.stream().allMatch(id -> moved(id, "slow") >= expected));
        }

        assertEquals(3, Broker.messagesAdded(f.topic + ".slow"), "no copy beside one still queued");
        for (String id : ids) {
            assertEquals("DELIVERED", f.delivery(id, "slow").getString("state"), "a backlog is not a loss");
            assertEquals(1, f.delivery(id, "slow").getInt("attempts"));
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(f.consume("slow", false).orElseThrow().getBoolean("processed"));
        }
        for (String id : ids) {
            f.awaitState(id, "COMPLETED");
        }
    }

    @Test
    void a_copy_the_broker_holds_for_its_delivery_time_counts_as_queued_and_gets_no_further_copy() {
        f.register(f.producer, "BARRIER").subscribe(2, 1, "later");
        // Courier's clock runs ahead of the broker's by what the tests advanced it: the delivery time is set from
        // Courier's, and the broker holds the copy for that long in real time.
        Instant courierNow = Instant.parse(f.message(f.prepare("{}", 3600)).getString("createdAt"));
        Http.Response prepared = http.post(
                "api/messages",
                "{\"topic\": \"" + f.topic + "\", \"producer\": \"" + f.producer
                        + "\", \"payload\": {}, \"deliverAt\": \"" + courierNow.plusSeconds(20) + "\"}");
        String id = prepared.json().getString("id");
        Instant heldUntil = Instant.now().plusSeconds(20); // in real time, the broker's
        assertEquals(
                "SENT", http.post("api/messages/" + id + "/confirm", "").json().getString("state"));
        Eventually.until(
                "relayed", Fixture.SETTLE, () -> f.delivery(id, "later").containsKey("nextAttemptAt"));

        f.advance(25); // past the delivery time and the 2 s timeout on Courier's clock; the broker still holds it
        Eventually.until("the deadline moved", Fixture.SETTLE, () -> moved(id, "later") >= 1);

        Broker.Received held = Broker.receive(Fixture.queue(f.topic, "later"), Duration.ofSeconds(40))
                .orElseThrow(() -> new AssertionError("the held copy never came"));
        assertEquals(id, held.courierMessageId());
        assertEquals(
                "COMPLETED",
                http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"later\"}")
                        .json()
                        .getString("state"));
        // Until well past the held copy's time: a copy sent beside it would have come at once.
        Duration rest = Duration.between(Instant.now(), heldUntil.plusSeconds(3));
        assertTrue(
                Broker.receive(Fixture.queue(f.topic, "later"), rest.isNegative() ? Duration.ofSeconds(3) : rest)
                        .isEmpty(),
                "no copy beside the one the broker held");
        assertEquals(1, f.delivery(id, "later").getInt("attempts"));
    }

    @Test
    void a_copy_left_in_the_queue_after_the_delivery_was_consumed_is_removed() {
        f.register(f.producer, "BARRIER").subscribe(2, 5, "a");
        String id = f.order("").getString("messageId");
        // The subscriber takes the first copy off its queue and is slow to report: the timeout sends another.
        assertEquals(
                id,
                Broker.receive(Fixture.queue(f.topic, "a"), Duration.ofSeconds(10))
                        .orElseThrow()
                        .courierMessageId());
        f.advance(3);
        Eventually.until("redelivered", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".a") == 2);
        assertEquals(1, Broker.messageCount(f.topic + ".a"));

        assertEquals(
                "COMPLETED",
                http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"a\"}")
                        .json()
                        .getString("state"));

        Eventually.until("the leftover copy removed", Fixture.SETTLE, () -> Broker.messageCount(f.topic + ".a") == 0);
    }

    /** How often the delivery's deadline moved because its copy was still queued. */
    private long moved(String id, String subscriber) {
        return f.message(id).getJsonArray("history").getValuesAs(JsonObject.class).stream()
                .filter(c -> subscriber.equals(c.getString("subscriber", null))
                        && c.getString("reason", "").contains("still in the subscriber's queue"))
                .count();
    }

    @Test
    void row3_a_consumer_that_committed_but_lost_its_ack_skips_the_duplicate() {
        f.register(f.producer, "BARRIER").subscribe("a");
        String id = f.order("").getString("messageId");
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        f.awaitState(id, "COMPLETED");

        // As if the broker never saw the ack: the same message arrives again.
        Broker.sendText(Fixture.queue(f.topic, "a"), "{\"order\":\"again\"}", "courierMessageId", id);

        assertFalse(f.consume("a", false).orElseThrow().getBoolean("processed"));
        assertEquals(1, f.effects(id, "a"));
        assertEquals("COMPLETED", f.state(id), "a repeated consumed report changes nothing");
    }

    @Test
    void row4_a_lost_consumed_report_is_made_again_after_the_redelivery() {
        f.register(f.producer, "BARRIER").subscribe(30, 10, "a");
        String id = f.order("").getString("messageId");
        f.lose(0, 1);

        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        assertEquals("SENT", f.state(id), "Courier never heard");
        f.advance(31);

        Eventually.until("redelivered", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".a") == 2);
        assertFalse(f.consume("a", false).orElseThrow().getBoolean("processed"));
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, "a"));
    }

    @Test
    void row5_courier_failing_to_record_the_report_redelivers_and_completes() {
        f.register(f.producer, "BARRIER").subscribe(30, 10, "a");
        String id = f.order("").getString("messageId");
        f.arm("reliable.consumed.before-complete");

        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        assertEquals("SENT", f.state(id));
        assertEquals("DELIVERED", f.delivery(id, "a").getString("state"), "the failed report rolled back");
        f.advance(31);

        Eventually.until("redelivered", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".a") == 2);
        assertFalse(f.consume("a", false).orElseThrow().getBoolean("processed"));
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, "a"));
    }

    @Test
    void a_subscriber_that_always_fails_is_redelivered_alone_until_dead_then_replayed() {
        f.register(f.producer, "BARRIER").subscribe(10, 2, "a", "b", "broken");
        String id = f.order("").getString("messageId");
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        assertTrue(f.consume("b", false).orElseThrow().getBoolean("processed"));

        for (int attempt = 1; attempt <= 3; attempt++) { // the first delivery and two retries
            int expected = attempt;
            Eventually.until(
                    "delivery " + attempt + " to broken",
                    Fixture.SETTLE,
                    () -> Broker.messagesAdded(f.topic + ".broken") >= expected);
            while (f.consume("broken", true).isPresent()) {
                // every copy on the queue fails
            }
            f.advance(400); // past the delivery timeout and any backoff
        }

        Eventually.until(
                "the delivery dead",
                Fixture.SETTLE,
                () -> f.delivery(id, "broken").getString("state").equals("DEAD"));
        assertEquals(Map.of("a", "CONSUMED", "b", "CONSUMED", "broken", "DEAD"), f.deliveries(id));
        assertEquals("SENT", f.state(id));
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"), "the others got it once");
        assertEquals(1, Broker.messagesAdded(f.topic + ".b"));
        assertEquals(3, Broker.messagesAdded(f.topic + ".broken"));
        Eventually.until(
                "the producer told", Fixture.SETTLE, () -> notifications().size() == 1);
        assertTrue(notifications().get(0).contains("\"kind\":\"DELIVERY_DEAD\""), notifications()::toString);
        assertTrue(notifications().get(0).contains("\"subscriber\":\"broken\""));
        assertEquals(
                List.of(id),
                http
                        .get("api/messages?subscriber=broken&deliveryState=DEAD&topic=" + f.topic)
                        .json()
                        .getJsonArray("messages")
                        .getValuesAs(JsonObject.class)
                        .stream()
                        .map(m -> m.getString("id"))
                        .toList());
        f.advance(400);
        assertEquals(3, Broker.messagesAdded(f.topic + ".broken"), "no more deliveries once dead");

        assertEquals(
                "SENT",
                http.post("api/messages/" + id + "/deliveries/broken/replay", "")
                        .json()
                        .getString("state"));
        Optional<JsonObject> replayed = f.consume("broken", false);

        assertTrue(replayed.orElseThrow().getBoolean("processed"), replayed::toString);
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, "broken"));
        assertEquals(1, f.effects(id, "a"));
        assertEquals(1, notifications().size(), "told once");
    }

    private List<Boolean> consumeAll(String subscriber) {
        List<Boolean> processed = new java.util.ArrayList<>();
        for (Optional<JsonObject> next = f.consume(subscriber, false);
                next.isPresent();
                next = f.consume(subscriber, false)) {
            processed.add(next.get().getBoolean("processed"));
        }
        return processed;
    }

    private List<String> notifications() {
        return f.upstream(f.producer).getJsonArray("notifications").getValuesAs(JsonString.class).stream()
                .map(JsonString::getString)
                .toList();
    }
}
