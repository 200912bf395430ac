package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import dev.courier.testing.ProducerStub;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Durability of the reliable message service: the server is killed with SIGKILL while producers prepare and
 * confirm and consumers consume and report. After a restart every message whose producer committed is delivered
 * to every subscriber and completed, nothing the producer did not commit is delivered, and the consumers'
 * inboxes show each effect once. Runs in the crash execution (it kills and restarts the server).
 */
class ReliableCrashIT {

    private static final LibertyProcess LIBERTY = new LibertyProcess();
    private static final List<String> SUBSCRIBERS = List.of("billing", "shipping");

    private final Http http = Http.server();

    @BeforeAll
    static void startServer() throws Exception {
        LIBERTY.deploy();
        LIBERTY.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        LIBERTY.stop();
        LIBERTY.undeploy();
    }

    @Test
    void should_lose_nothing_and_duplicate_no_effect_when_the_server_is_killed_during_confirm_and_delivery()
            throws Exception {
        String producer = Fixture.unique("crashp");
        String topic = Fixture.unique("crasht");
        try (ProducerStub stub = ProducerStub.start()) {
            Http.Response registered = http.post("api/producers", stub.registration(producer));
            assertEquals(201, registered.status(), registered::toString);
            for (String s : SUBSCRIBERS) {
                assertEquals(201, http.post("api/topics/" + topic + "/subscribers", "{\"name\": \"" + s
                        + "\", \"deliveryTimeoutSeconds\": 5, \"retryLimit\": 100}").status());
            }
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
            Map<String, Set<String>> inbox = new ConcurrentHashMap<>();
            AtomicInteger duplicates = new AtomicInteger();
            AtomicBoolean running = new AtomicBoolean(true);
            List<CompletableFuture<Void>> consumers = new ArrayList<>();
            for (String s : SUBSCRIBERS) {
                inbox.put(s, ConcurrentHashMap.newKeySet());
                consumers.add(CompletableFuture.runAsync(() -> consume(topic, s, inbox.get(s), duplicates, running), threads));
            }
            AtomicBoolean producing = new AtomicBoolean(true);
            List<CompletableFuture<Void>> producers = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                producers.add(CompletableFuture.runAsync(() -> produce(producer, topic, stub, producing), threads));
            }

            // Kill once enough has committed that prepares, confirms, deliveries and reports are all in flight;
            // waiting on a count, not a fixed time, keeps the test meaningful on a slow or busy machine.
            long warmUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (stub.committed().size() < 40 && System.nanoTime() < warmUp) {
                Thread.sleep(100);
            }
            LIBERTY.kill();
            producing.set(false);
            CompletableFuture.allOf(producers.toArray(CompletableFuture[]::new)).join();
            LIBERTY.start();

            Set<String> committed = stub.committed();
            assertTrue(committed.size() > 20, "messages were committed before the crash: " + committed.size());
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (count(producer, "COMPLETED") < committed.size() && System.nanoTime() < deadline) {
                Thread.sleep(1000);
            }
            running.set(false);
            CompletableFuture.allOf(consumers.toArray(CompletableFuture[]::new)).join();
            threads.shutdown();

            assertEquals(committed.size(), count(producer, "COMPLETED"), "every committed message completed");
            assertEquals(0, count(producer, "SENT") + count(producer, "PENDING") + count(producer, "DEAD"));
            for (String s : SUBSCRIBERS) {
                assertEquals(committed, inbox.get(s), s + " processed exactly the committed messages");
            }
            // Duplicates on the wire are allowed (a redelivery after the crash); their effects were skipped.
            System.out.println("reliable crash test: " + committed.size() + " committed, " + duplicates.get()
                    + " duplicate deliveries skipped by the inbox");
        }
    }

    private void produce(String producer, String topic, ProducerStub stub, AtomicBoolean producing) {
        for (int i = 0; producing.get() && i < 200; i++) { // at most 800 messages: one query page counts them
            try {
                Http.Response prepared = http.post("api/messages", "{\"topic\": \"" + topic + "\", \"producer\": \""
                        + producer + "\", \"payload\": {\"n\": " + i + "}, \"checkBackSeconds\": 3}");
                if (prepared.status() != 201) {
                    continue;
                }
                String id = prepared.json().getString("id");
                stub.commit(id); // the producer's local transaction commits
                http.post("api/messages/" + id + "/confirm", "");
            } catch (RuntimeException e) {
                // the server died under this request: prepared-but-unanswered messages are cancelled by check-back
            }
        }
    }

    /** A consumer outside Courier with its own inbox: one effect per message id, then a consumed report. */
    private void consume(String topic, String subscriber, Set<String> inbox, AtomicInteger duplicates,
            AtomicBoolean running) {
        while (running.get()) {
            try {
                Broker.receive(Fixture.queue(topic, subscriber), Duration.ofMillis(500)).ifPresent(message -> {
                    if (!inbox.add(message.courierMessageId())) {
                        duplicates.incrementAndGet();
                    }
                    try {
                        http.post("api/messages/" + message.courierMessageId() + "/consumed",
                                "{\"subscriber\": \"" + subscriber + "\"}");
                    } catch (RuntimeException e) {
                        // report lost with the server: Courier redelivers after the delivery timeout
                    }
                });
            } catch (RuntimeException e) {
                // broker hiccup: try again
            }
        }
    }

    private int count(String producer, String state) {
        JsonObject page = http.get("api/messages?producer=" + producer + "&state=" + state + "&limit=1000").json();
        return page.getJsonArray("messages").size();
    }
}
