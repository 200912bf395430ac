package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Durability: the server is killed with SIGKILL while messages are leased, unleased and being sent. After a
 * restart every message whose send was acknowledged (HTTP 201) is delivered and acknowledged exactly once.
 * Runs in its own Failsafe execution, after the Arquillian tests, because it kills and restarts the server.
 */
class QueueCrashIT {

    private static final LibertyProcess LIBERTY = new LibertyProcess();
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
    void should_lose_no_message_when_the_server_is_killed_mid_flow() throws Exception {
        String queue = "crash" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(
                201,
                http.put(
                                "api/queues/" + queue,
                                "{\"leaseSeconds\": 3, \"maxAttempts\": 100, "
                                        + "\"backoff\": {\"initialSeconds\": 0, \"multiplier\": 1, \"maxSeconds\": 0}}")
                        .status());
        Set<String> sent = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 200; i++) {
            sent.add(send(queue, i));
        }
        Http.Response leased = http.post("api/queues/" + queue + "/receive", "{\"max\": 50}");
        assertEquals(50, leased.json().getJsonArray("messages").size(), "50 messages leased, 150 not, at the crash");

        AtomicBoolean sending = new AtomicBoolean(true);
        CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
            for (int i = 1000; sending.get(); i++) {
                try {
                    sent.add(send(queue, i)); // only sends answered 201 count as sent
                } catch (RuntimeException | AssertionError e) {
                    return; // the server died under this request
                }
            }
        });
        // Let the sender get going (counted, not timed, so a slow machine cannot kill before any send lands).
        long warmUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (sent.size() < 230 && System.nanoTime() < warmUp) {
            Thread.sleep(50);
        }
        LIBERTY.kill();
        sending.set(false);
        sender.join();
        LIBERTY.start();

        Set<String> acked = new HashSet<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!acked.containsAll(sent) && System.nanoTime() < deadline) {
            Http.Response received =
                    http.post("api/queues/" + queue + "/receive", "{\"max\": 100, \"waitSeconds\": 2}");
            assertEquals(200, received.status(), received::toString);
            for (JsonObject message : received.json().getJsonArray("messages").getValuesAs(JsonObject.class)) {
                Http.Response ack = http.delete("api/queues/" + queue + "/messages/" + message.getString("id")
                        + "?leaseToken=" + message.getString("leaseToken"));
                assertEquals(204, ack.status(), ack::toString);
                assertTrue(acked.add(message.getString("id")), "acknowledged twice: " + message.getString("id"));
            }
        }
        assertTrue(
                acked.containsAll(sent),
                "lost " + (sent.size() - acked.stream().filter(sent::contains).count()) + " of " + sent.size()
                        + " acknowledged sends");
        assertTrue(sent.size() > 200, "some sends were in flight around the crash");
    }

    private String send(String queue, int n) {
        Http.Response response = http.post("api/queues/" + queue + "/messages", "{\"payload\": " + n + "}");
        if (response.status() != 201) {
            throw new AssertionError(response.toString());
        }
        return response.json().getString("id");
    }
}
