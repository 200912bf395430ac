package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import dev.courier.testing.ProducerStub;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two Courier servers of the same installation on one PostgreSQL database and one broker, both running the
 * reconciler: each due check-back is made once and each due redelivery sent once, not once per server. The second
 * server's clock runs 30 s ahead ({@code courier.clock.skew}): the times it stores are the database's.
 * PostgreSQL only (the embedded database belongs to one process). Runs in the crash execution, which manages its
 * own servers.
 */
class ReliableServersIT {

    private static LibertyProcess first;
    private static LibertyProcess second;

    @BeforeAll
    static void startServers() throws Exception {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "needs a shared database");
        first = new LibertyProcess();
        // The second server's own clock runs 30 s ahead: every time it stores is the database's all the same.
        second = LibertyProcess.second().environment("COURIER_CLOCK_SKEW", "PT30S");
        LibertyProcess.startAll(first, second);
    }

    @AfterAll
    static void stopServers() throws Exception {
        LibertyProcess.stopAll(first, second);
    }

    @Test
    void should_check_back_each_due_message_once_and_redeliver_each_due_delivery_once() throws Exception {
        Http a = first.http();
        Http b = second.http();
        String producer = Fixture.unique("twop");
        String topic = Fixture.unique("twot");
        try (ProducerStub stub = ProducerStub.start()) {
            assertEquals(201, stub.register(a, producer).status());
            assertEquals(
                    201,
                    b.post(
                                    "api/topics/" + topic + "/subscribers",
                                    "{\"name\": \"idle\", \"deliveryTimeoutSeconds\": 2, \"retryLimit\": 1}")
                            .status());
            List<String> pending = new ArrayList<>();
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                pending.add(prepare(i % 2 == 0 ? a : b, producer, topic));
            }
            for (int i = 0; i < 100; i++) {
                String id = prepare(a, producer, topic);
                stub.commit(id);
                assertEquals(
                        200,
                        (i % 2 == 0 ? a : b)
                                .post("api/messages/" + id + "/confirm", "")
                                .status());
                sent.add(id);
            }

            Instant before = Instant.now();
            String onSkewed = prepare(b, producer, topic);
            Instant after = Instant.now();
            pending.add(onSkewed);
            Instant created =
                    Instant.parse(b.get("api/messages/" + onSkewed).json().getString("createdAt"));
            assertTrue(
                    !created.isBefore(before.minusSeconds(2)) && !created.isAfter(after.plusSeconds(2)),
                    "created at " + created + ", prepared between " + before + " and " + after
                            + ": database time, not the second server's 30 s ahead");

            // Nobody committed the pending ones: every check-back answers ROLLED_BACK, once per message.
            Eventually.until(
                    "all pending cancelled",
                    Duration.ofSeconds(90),
                    () -> count(a, "producer=" + producer + "&state=CANCELLED") == 201);
            for (String id : pending) {
                assertEquals(
                        1, stub.checks().getOrDefault(id, new AtomicInteger()).get(), "check-backs of " + id);
            }
            // The subscriber takes every copy off its queue and never reports: each delivery is redelivered once
            // (retry limit 1; the queue is empty, so it is not a backlog), then dead, the producer told once.
            java.util.concurrent.atomic.AtomicBoolean draining = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread sink = new Thread(
                    () -> {
                        while (draining.get()) {
                            try {
                                Broker.receive(Fixture.queue(topic, "idle"), Duration.ofMillis(500));
                            } catch (RuntimeException e) {
                                // the broker hiccupped: go on
                            }
                        }
                    },
                    "idle-subscriber");
            sink.start();
            try {
                Eventually.until(
                        "all deliveries dead",
                        Duration.ofSeconds(90),
                        () -> count(b, "topic=" + topic + "&subscriber=idle&deliveryState=DEAD") == 100);
            } finally {
                draining.set(false);
                sink.join();
            }
            assertEquals(200, Broker.messagesAdded(topic + ".idle"), "one publish and one redelivery per message");
            Eventually.until(
                    "every producer notified",
                    Duration.ofSeconds(60),
                    () -> stub.notifications().size() >= 100);
            Thread.sleep(2000); // a second notification, if any were made, would arrive now
            assertEquals(100, stub.notifications().size(), "one notification per dead delivery");

            Set<String> servers = new HashSet<>();
            for (String id : pending) {
                JsonObject message = a.get("api/messages/" + id).json();
                message.getJsonArray("history").getValuesAs(JsonObject.class).stream()
                        .filter(h -> "CANCELLED".equals(h.getString("to")))
                        .forEach(h -> servers.add(h.getString("server")));
            }
            assertTrue(servers.size() == 2, "both servers settled check-backs: " + servers);
        }
    }

    private static String prepare(Http server, String producer, String topic) {
        Http.Response prepared = server.post(
                "api/messages",
                "{\"topic\": \"" + topic + "\", \"producer\": \"" + producer
                        + "\", \"payload\": {}, \"checkBackSeconds\": 2}");
        assertEquals(201, prepared.status(), prepared::toString);
        return prepared.json().getString("id");
    }

    private static int count(Http server, String query) {
        return server.get("api/messages?" + query + "&limit=1000")
                .json()
                .getJsonArray("messages")
                .size();
    }
}
