package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.ProductionDatabaseOnly;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A subscriber that is behind is not a subscriber that lost its copies (the seed's downstream row 4, with a consumer
 * attached and slow, and with none; row 5, the broker down while deadlines fall due): copies a consumer has taken
 * and not acknowledged, copies deep in a queue, and copies the broker cannot be asked about all count as still
 * there, so the subscriber gets no further copy and nothing dies. And one
 * subscriber's long backlog does not hold back another subscriber's redelivery.
 */
@ProductionDatabaseOnly
@ExtendWith(ArquillianExtension.class)
class BacklogIT {

    private static final Duration DRAIN = Duration.ofSeconds(120);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    /**
     * A plain JMS consumer on default settings (it prefetches up to its 1 MiB window, so the broker counts its copies
     * as delivering, not queued) that takes a message every 150 ms from a backlog three times its delivery timeout,
     * reporting each and then acknowledging it: every message reaches it once, with attempt 1, and completes.
     */
    @Test
    void row4_a_slow_consumer_holding_prefetched_copies_past_their_timeout_gets_each_message_once() throws Exception {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(2, 10, "slow");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add(f.order("").getString("messageId"));
        }
        Eventually.until("relayed", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".slow") == 40);

        Map<String, Integer> received = new HashMap<>();
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + Broker.PORT);
                JMSContext context =
                        factory.createContext(Broker.USER, Broker.PASSWORD, JMSContext.CLIENT_ACKNOWLEDGE);
                JMSConsumer consumer = context.createConsumer(context.createQueue(Fixture.queue(f.topic, "slow")))) {
            for (Message m; (m = consumer.receive(received.size() < 40 ? 30_000 : 6_000)) != null; ) {
                String id = m.getStringProperty("courierMessageId");
                assertEquals(1, m.getIntProperty("courierAttempt"), "a first copy, never a redelivery");
                received.merge(id, 1, Integer::sum);
                Thread.sleep(150); // the work
                assertEquals(
                        200,
                        f.http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"slow\"}")
                                .status());
                m.acknowledge();
            }
        }

        assertEquals(ids.size(), received.size(), "every message came");
        assertTrue(received.values().stream().allMatch(n -> n == 1), "each once: " + received);
        assertEquals(40, Broker.messagesAdded(f.topic + ".slow"), "no further copy was sent");
        for (String id : ids) {
            f.awaitState(id, "COMPLETED");
            assertEquals(1, f.delivery(id, "slow").getInt("attempts"));
        }
    }

    /**
     * No consumer while 210 copies wait, more than the 200 a broker's management browses by default (Artemis 2.56's
     * count by filter covers the whole queue; an older one's did not): past their deadlines none gets a further
     * copy. Then a consumer drains the queue and all complete.
     */
    @Test
    void row4_a_backlog_of_210_with_no_consumer_gets_no_further_copies() throws Exception {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(600, 1, "deep");
        for (int i = 0; i < 210; i++) {
            f.order("");
        }
        Eventually.until("relayed", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".deep") == 210);

        for (int round = 1; round <= 2; round++) { // two timeouts: twice the retry limit of 1 would bury a redelivery
            f.advance(601);
            Instant now = courierNow();
            // Each deadline moved a timeout (10 minutes) on: looked at and found queued. A claim not yet acted on
            // is a minute on; a redelivery counts an attempt, which the assertions after this catch.
            Eventually.until(
                    "every deadline moved, round " + round,
                    DRAIN,
                    () -> deliveries(f, "deep").stream()
                            .allMatch(d -> d.containsKey("nextAttemptAt")
                                    && Instant.parse(d.getString("nextAttemptAt"))
                                            .isAfter(now.plusSeconds(590))));
        }

        assertEquals(210, Broker.messagesAdded(f.topic + ".deep"), "no further copy");
        for (JsonObject delivery : deliveries(f, "deep")) {
            assertEquals("DELIVERED", delivery.getString("state"), "behind, not dead");
            assertEquals(1, delivery.getInt("attempts"));
        }
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + Broker.PORT);
                JMSContext context =
                        factory.createContext(Broker.USER, Broker.PASSWORD, JMSContext.CLIENT_ACKNOWLEDGE);
                JMSConsumer consumer = context.createConsumer(context.createQueue(Fixture.queue(f.topic, "deep")))) {
            for (int i = 0; i < 210; i++) {
                Message m = consumer.receive(10_000);
                String id = m.getStringProperty("courierMessageId");
                assertEquals(
                        200,
                        f.http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"deep\"}")
                                .status());
                m.acknowledge();
            }
        }
        Eventually.until(
                "all completed",
                Fixture.SETTLE,
                () -> f.http.get("api/messages?topic=" + f.topic + "&state=COMPLETED&limit=1000")
                                .json()
                                .getJsonArray("messages")
                                .size()
                        == 210);
    }

    /** The deliveries of {@code f}'s topic to {@code subscriber}, every page of them. */
    private static List<JsonObject> deliveries(Fixture f, String subscriber) {
        List<JsonObject> found = new ArrayList<>();
        String after = null;
        do {
            JsonObject page = f.http.get(
                            "api/messages?topic=" + f.topic + "&limit=1000" + (after == null ? "" : "&after=" + after))
                    .json();
            page.getJsonArray("messages")
                    .getValuesAs(JsonObject.class)
                    .forEach(m -> m.getJsonArray("deliveries").getValuesAs(JsonObject.class).stream()
                            .filter(d -> subscriber.equals(d.getString("subscriber")))
                            .forEach(found::add));
            after = page.isNull("next") ? null : page.getString("next");
        } while (after != null);
        return found;
    }

    /** Courier's clock now (ahead of this machine's by what the tests advanced it): a prepare's time. */
    private static Instant courierNow() {
        Fixture clock = new Fixture();
        clock.register(clock.producer, "PENDING").subscribe("clock");
        return Instant.parse(clock.message(clock.prepare("{}", 3600)).getString("createdAt"));
    }

    /**
     * 60 deliveries of a subscriber with no consumer fall due before one of another subscriber whose copy was lost
     * (taken, never processed): the lost one's redelivery comes before the long backlog has all been looked at, as
     * the deadlines of the backlog that moved after it show.
     */
    @Test
    void one_subscribers_long_backlog_does_not_hold_back_another_subscribers_redelivery() {
        Fixture down = new Fixture();
        down.register(down.producer, "BARRIER").subscribe(2, 10, "down");
        List<String> backlog = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            backlog.add(down.order("").getString("messageId"));
        }
        Eventually.until("relayed", Fixture.SETTLE, () -> Broker.messagesAdded(down.topic + ".down") == 60);
        Fixture other = new Fixture();
        other.register(other.producer, "BARRIER").subscribe(2, 10, "lost");
        String lost = other.order("").getString("messageId");
        assertTrue(Broker.receive(Fixture.queue(other.topic, "lost"), Duration.ofSeconds(10))
                .isPresent()); // taken off its queue, never processed: its deadline falls due after the backlog's

        down.advance(3);
        Eventually.until("the lost copy sent again", DRAIN, () -> Broker.messagesAdded(other.topic + ".lost") == 2);
        Eventually.until(
                "the backlog looked at", DRAIN, () -> backlog.stream().allMatch(id -> moved(down, id, "down") >= 1));

        Instant redelivered = Instant.parse(at(other, lost, "lost", "redelivered"));
        long before = backlog.stream()
                .filter(id -> Instant.parse(at(down, id, "down", "still in the subscriber's queue"))
                        .isBefore(redelivered))
                .count();
        assertTrue(before < 60, "the redelivery waited for all " + before + " of the backlog");
        assertEquals(60, Broker.messagesAdded(down.topic + ".down"), "and the backlog got no further copy");
    }

    /**
     * The broker down while the copies' deadlines pass: what its queue holds cannot be known, so no copy is
     * decided and no attempt counted; when it is back, its copies are there and complete.
     */
    @Test
    void row5_the_broker_down_while_deadlines_fall_due_adds_no_copy_and_buries_nothing() {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(2, 1, "a");
        List<String> ids =
                List.of(f.order("").getString("messageId"), f.order("").getString("messageId"));
        Eventually.until("relayed", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".a") == 2);

        Broker.stop();
        try {
            for (int i = 0; i < 3; i++) { // three timeouts, past the retry limit of 1
                f.advance(3);
                sleep(Duration.ofSeconds(3)); // reconciler rounds meet the broker down
            }
            for (String id : ids) {
                JsonObject delivery = f.delivery(id, "a");
                assertEquals("DELIVERED", delivery.getString("state"));
                assertEquals(1, delivery.getInt("attempts"), "no redelivery decided while the broker was down");
            }
        } finally {
            Broker.start();
        }
        for (int i = 0; i < 2; i++) {
            // The consumer's first receives after the restart may meet a connection the broker dropped: it tries
            // again, as a worker would.
            Eventually.until(
                    "a copy consumed",
                    Fixture.SETTLE,
                    () -> f.consume("a", false)
                            .map(c -> c.getBoolean("processed", false))
                            .orElse(false));
        }
        for (String id : ids) {
            f.awaitState(id, "COMPLETED");
            assertEquals(1, f.delivery(id, "a").getInt("attempts"));
        }
        assertEquals(2, Broker.messagesAdded(f.topic + ".a"));
    }

    /** How often the delivery's deadline moved because its copy was (or may have been) still queued. */
    private static long moved(Fixture f, String id, String subscriber) {
        return history(f, id, subscriber, "still in the subscriber's queue").size();
    }

    /** When the delivery's first history entry whose reason holds {@code reason} was written. */
    private static String at(Fixture f, String id, String subscriber, String reason) {
        return history(f, id, subscriber, reason).get(0).getString("at");
    }

    private static List<JsonObject> history(Fixture f, String id, String subscriber, String reason) {
        return f.message(id).getJsonArray("history").getValuesAs(JsonObject.class).stream()
                .filter(c -> subscriber.equals(c.getString("subscriber", null))
                        && c.getString("reason", "").contains(reason))
                .toList();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
