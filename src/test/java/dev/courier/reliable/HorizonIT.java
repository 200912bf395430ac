package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.ProductionDatabaseOnly;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The horizon ({@code courier.reliable.horizon}, 7 days): past it Courier asks no producer and sends no copy, so
 * the promise of {@link dev.courier.client.ClientTables#purge} holds. A pending message goes dead without a call,
 * a delivery nobody reported goes dead without a copy, and neither can be resumed or replayed. And what may still
 * come late from a producer or a consumer: a confirm or cancel of a dead message, a consumed report of a dead
 * delivery.
 */
@ProductionDatabaseOnly
@ExtendWith(ArquillianExtension.class)
class HorizonIT {

    private static final long PAST_HORIZON = 8 * 24 * 3600;
    private static final int DAY = 24 * 3600;
    /**
     * The first wait after the jump: eight days on, every message the run's earlier tests left is past its horizon
     * and past the retention at once, and the first rounds work through all of them (dead deliveries, notices,
     * the purge) before they reach this test's; in a full CI run that once took more than 30 s (Derby).
     */
    private static final Duration AFTER_JUMP = Duration.ofSeconds(120);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    private static List<JsonObject> notifications(Fixture f) {
        return f.upstream(f.producer).getJsonArray("notifications").getValuesAs(jakarta.json.JsonString.class).stream()
                .map(s -> jakarta.json.Json.createReader(new StringReader(s.getString()))
                        .readObject())
                .toList();
    }

    private static int calls(Fixture f) {
        return f.upstream(f.producer).getJsonArray("calls").size();
    }

    @Test
    void a_pending_message_past_the_horizon_dies_without_a_check_back_and_cannot_be_resumed() {
        Fixture f = new Fixture();
        f.register(f.producer, "PENDING").subscribe("a");
        String id = f.prepare("{}", 3600); // its first check-back due in an hour
        int before = calls(f);

        f.advance(PAST_HORIZON);

        f.awaitState(id, "DEAD");
        assertEquals(before, calls(f), "no check-back past the horizon: the barrier row may be gone");
        assertTrue(f.message(id).getJsonArray("history").toString().contains("horizon"), f.message(id)::toString);
        Eventually.until(
                "the producer told", Fixture.SETTLE, () -> notifications(f).size() == 1);
        assertEquals("MESSAGE_DEAD", notifications(f).get(0).getString("kind"));
        Http.Response resumed = f.http.post("api/messages/" + id + "/resume", "");
        assertEquals(409, resumed.status(), resumed::toString);
        assertEquals("DEAD", resumed.json().getString("state"));
        assertTrue(resumed.json().getString("detail").contains("horizon"), resumed::toString);
        assertEquals("DEAD", f.state(id), "nothing written");
    }

    @Test
    void a_delivery_past_the_horizon_dies_without_another_copy_and_cannot_be_replayed() {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(30, 10, "gone");
        String id = f.order("").getString("messageId");
        assertTrue(
                Broker.receive(Fixture.queue(f.topic, "gone"), Duration.ofSeconds(10))
                        .isPresent(),
                "the first copy, taken and never reported");

        f.advance(PAST_HORIZON);

        Eventually.until(
                "the delivery dead",
                AFTER_JUMP,
                () -> "DEAD".equals(f.delivery(id, "gone").getString("state")));
        assertEquals(
                1, f.delivery(id, "gone").getInt("attempts"), "no copy past the horizon: the inbox row may be gone");
        assertEquals(1, Broker.messagesAdded(f.topic + ".gone"));
        Eventually.until(
                "the producer told", Fixture.SETTLE, () -> notifications(f).size() == 1);
        assertEquals("DELIVERY_DEAD", notifications(f).get(0).getString("kind"));
        Http.Response replayed = f.http.post("api/messages/" + id + "/deliveries/gone/replay", "");
        assertEquals(409, replayed.status(), replayed::toString);
        assertTrue(replayed.json().getString("detail").contains("horizon"), replayed::toString);
        assertEquals("DEAD", f.delivery(id, "gone").getString("state"), "nothing written");
        assertEquals(1, Broker.messagesAdded(f.topic + ".gone"), "no copy sent");
    }

    @Test
    void past_the_horizon_a_copy_still_queued_is_removed_and_a_queue_that_is_gone_holds_up_no_other_delivery() {
        Fixture lost = new Fixture();
        lost.register(lost.producer, "BARRIER").subscribe(30, 10, "gone");
        for (int n = 0; n < 3; n++) {
            lost.order("");
        }
        Eventually.until("published", Fixture.SETTLE, () -> Broker.messagesAdded(lost.topic + ".gone") == 3);
        Broker.destroyQueue(Fixture.queue(lost.topic, "gone")); // as an operator's mistake would, copies and all
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(30, 10, "slow");
        String queued = f.order("").getString("messageId");
        Eventually.until("published", Fixture.SETTLE, () -> Broker.messageCount(f.topic + ".slow") == 1);

        f.advance(PAST_HORIZON);

        // The three deliveries whose queue is gone come first (older deadlines); were each of them a failure, three
        // in a row would end every round before the fourth.
        Eventually.until(
                "the queued copy's delivery dead",
                Fixture.SETTLE,
                () -> "DEAD".equals(f.delivery(queued, "slow").getString("state")));
        assertEquals(0, Broker.messageCount(f.topic + ".slow"), "the copy still queued removed");
        assertEquals(1, f.delivery(queued, "slow").getInt("attempts"), "no further copy");
        List<JsonObject> gone = lost.http
                .get("api/messages?topic=" + lost.topic)
                .json()
                .getJsonArray("messages")
                .getValuesAs(JsonObject.class);
        assertEquals(3, gone.size());
        for (JsonObject m : gone) {
            Eventually.until(
                    "the delivery to the queue that is gone dead",
                    Fixture.SETTLE,
                    () -> "DEAD".equals(lost.delivery(m.getString("id"), "gone").getString("state")));
        }
    }

    /**
     * A replay decided before the horizon whose copy the relay could not publish before it (the broker down) is not
     * published after it: the delivery is buried at the horizon, and no copy reaches a consumer that may have purged
     * its inbox row.
     */
    @Test
    void a_replay_decided_before_the_horizon_is_not_published_after_it() {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(2, 0, "a");
        String id = f.order("").getString("messageId");
        assertTrue(Broker.receive(Fixture.queue(f.topic, "a"), Duration.ofSeconds(10))
                .isPresent()); // taken, never reported
        f.advance(3);
        Eventually.until(
                "dead after its one attempt",
                Fixture.SETTLE,
                () -> "DEAD".equals(f.delivery(id, "a").getString("state")));
        Broker.stop();
        try {
            Http.Response replayed = f.http.post("api/messages/" + id + "/deliveries/a/replay", "");
            assertEquals(200, replayed.status(), replayed::toString);
            f.advance(PAST_HORIZON);
        } finally {
            Broker.start();
        }

        Eventually.until("buried at the horizon", AFTER_JUMP, () -> {
            JsonObject delivery = f.delivery(id, "a");
            return "DEAD".equals(delivery.getString("state"))
                    && delivery.getString("lastError", "").contains("horizon");
        });
        // The broker counts what it was given since it started: nothing, as the replay's copy was not published.
        assertEquals(0, Broker.messagesAdded(f.topic + ".a"), "the replay's copy was not published");
    }

    /**
     * Every copy expires at its message's horizon (JMS expiration, in the broker's time: Courier's clock runs ahead
     * of it in the tests by what they advanced), so a copy no removal reached is dropped by the broker, and the
     * client never hands it to a listener, once the inbox row may be purged.
     */
    @Test
    void a_copy_expires_at_its_messages_horizon() {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe("a");
        String id = f.order("").getString("messageId");
        java.time.Instant created = java.time.Instant.parse(f.message(id).getString("createdAt"));
        java.time.Instant courierNow =
                java.time.Instant.parse(f.message(f.prepare("{}", 3600)).getString("createdAt"));
        java.time.Instant expected = java.time.Instant.now()
                .plus(java.time.Duration.ofDays(7))
                .minus(java.time.Duration.between(created, courierNow));

        Broker.Received copy = Broker.receive(Fixture.queue(f.topic, "a"), Duration.ofSeconds(10))
                .orElseThrow();

        assertEquals(id, copy.courierMessageId());
        long off = Math.abs(copy.expiration() - expected.toEpochMilli());
        assertTrue(
                off < 60_000,
                "expires " + java.time.Instant.ofEpochMilli(copy.expiration()) + ", not near " + expected);
    }

    /**
     * The review's case: a delivery timeout of a day; copy 1 processed, its report lost; copy 2 waits while the
     * consumer is down, its deadline moving day by day. At the horizon the delivery dies and copy 2 is removed, not
     * a deadline later: the application purges its inbox at the horizon as documented, and the consumer that comes
     * back then finds no copy to apply a second time.
     */
    @Test
    void a_copy_waiting_at_the_horizon_is_gone_before_the_application_purges_its_inbox() {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(DAY, 10, "a");
        String id = f.order("").getString("messageId");
        f.lose(0, 1);
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"), "copy 1 applied, its report lost");
        assertEquals(1, f.effects(id, "a"));

        f.advance(DAY + 1);
        Eventually.until("copy 2 sent", AFTER_JUMP, () -> Broker.messagesAdded(f.topic + ".a") == 2);
        Eventually.until(
                "copy 2 relayed", Fixture.SETTLE, () -> f.delivery(id, "a").containsKey("nextAttemptAt"));
        f.advance(5.9 * DAY); // its deadline passes a day before the horizon: copy 2 is still queued
        Eventually.until(
                "the deadline moved",
                AFTER_JUMP,
                () -> f.message(id).getJsonArray("history").stream()
                        .anyMatch(c -> c.toString().contains("still in the subscriber's queue")));
        f.advance(0.2 * DAY); // just past the horizon, before a deadline a day after the last one

        Eventually.until(
                "the delivery dead at the horizon",
                AFTER_JUMP,
                () -> "DEAD".equals(f.delivery(id, "a").getString("state")));
        assertTrue(
                f.http.post(
                                        "api/test/apps/purge?before="
                                                + java.time.Instant.now().plusSeconds(1),
                                        "")
                                .json()
                                .getInt("purged")
                        > 0,
                "the application purged its inbox");
        assertTrue(f.consume("a", false).isEmpty(), "no copy left for the consumer that comes back");
        assertEquals(1, f.effects(id, "a"), "applied once");
        assertEquals(2, f.delivery(id, "a").getInt("attempts"));
    }

    @Test
    void a_late_confirm_or_cancel_settles_a_dead_message_and_a_late_consumed_report_a_dead_delivery() {
        Fixture f = new Fixture();
        f.register(f.producer, "PENDING").subscribe(30, 10, "late");
        String confirmed = f.prepare("{}", 3600);
        String cancelled = f.prepare("{}", 3600);
        String sent = f.prepare("{}", 3600);
        assertEquals(200, f.http.post("api/messages/" + sent + "/confirm", "").status());
        assertTrue(Broker.receive(Fixture.queue(f.topic, "late"), Duration.ofSeconds(10))
                .isPresent());

        f.advance(PAST_HORIZON);
        f.awaitState(confirmed, "DEAD");
        f.awaitState(cancelled, "DEAD");
        Eventually.until(
                "the delivery dead",
                Fixture.SETTLE,
                () -> "DEAD".equals(f.delivery(sent, "late").getString("state")));

        // The producer's word is what the message stands for: a late confirm sends it, a late cancel cancels it.
        assertEquals(
                "SENT",
                f.http.post("api/messages/" + confirmed + "/confirm", "").json().getString("state"));
        assertEquals(200, f.http.delete("api/messages/" + cancelled).status());
        assertEquals("CANCELLED", f.state(cancelled));
        assertTrue(
                Broker.receive(Fixture.queue(f.topic, "late"), Duration.ofSeconds(10))
                        .isPresent(),
                "the late confirm's copy");
        // The consumer did process it after all: its late report counts.
        Http.Response report = f.http.post("api/messages/" + sent + "/consumed", "{\"subscriber\": \"late\"}");
        assertEquals(200, report.status(), report::toString);
        assertEquals("CONSUMED", f.delivery(sent, "late").getString("state"));
        f.awaitState(sent, "COMPLETED");
    }
}
