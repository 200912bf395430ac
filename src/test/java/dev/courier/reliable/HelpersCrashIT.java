package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.LibertyProcess;
import jakarta.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The windows where the wire is at-least-once, each with a real crash (SIGKILL) of the server, through the real
 * helpers (the test applications of the tests' archive; effects counted in the consumer's own table). The relay's:
 * killed after the broker committed a batch and before the relay marked it published, the batch goes out again
 * and the inbox applies the effect once. The consumer's (the seed's downstream row 3): killed after the MDB's
 * local transaction committed the inbox row and the effect and before the broker's acknowledgement, the broker
 * redelivers and the inbox skips the copy. Runs in the crash execution (it kills and restarts the server), on
 * PostgreSQL only: the windows are the helpers' and the broker's, not the database's, and the production database
 * is the one that matters (the embedded one's own crash recovery is QueueCrashIT's).
 */
class HelpersCrashIT {

    private static final LibertyProcess LIBERTY = new LibertyProcess();

    @BeforeAll
    static void startServer() throws Exception {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "runs on PostgreSQL only");
        LIBERTY.deploy(CourierDeployment.exported());
        LIBERTY.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if ("postgres".equals(System.getProperty("courier.db"))) {
            LIBERTY.stop();
            LIBERTY.undeploy();
        }
    }

    @Test
    void killed_between_the_broker_commit_and_the_mark_publishes_again_and_the_broker_drops_the_copy_it_has()
            throws Exception {
        Fixture f = new Fixture();
        // A long delivery timeout: the second copy must be the relay's, not a redelivery.
        f.register(f.producer, "BARRIER").subscribe(600, 10, "inbox");
        String queue = f.topic + ".inbox";
        assertEquals(
                204,
                f.http.post("api/test/faults/" + RelayBatches.AFTER_BROKER_COMMIT + "?hold=true", "")
                        .status());

        String id = f.order("").getString("messageId"); // the producer helper: order row, prepare, commit, confirm
        Eventually.until(
                "the relay held after the broker's commit",
                Fixture.SETTLE,
                () -> f.http.get("api/test/faults/" + RelayBatches.AFTER_BROKER_COMMIT + "/held")
                                .json()
                                .getInt("held")
                        == 1);
        assertEquals(1, Broker.messagesAdded(queue), "the batch is on the broker");
        assertEquals(1, f.orders(id), "the order committed with its message");

        LIBERTY.kill();
        LIBERTY.start();

        // Marked only by the publish after the restart, whose copy the broker drops by its duplicate id.
        Eventually.until(
                "published again and marked after the restart",
                Duration.ofSeconds(60),
                () -> f.delivery(id, "inbox").containsKey("nextAttemptAt"));
        assertEquals(1, Broker.messagesAdded(queue), "the second copy dropped by its duplicate id");
        JsonObject first = f.consume("inbox", false).orElseThrow();
        assertEquals(id, first.getString("id"));
        assertTrue(first.getBoolean("processed"), first::toString);
        assertEquals(1, f.effects(id, "inbox"), "one effect");
        f.awaitState(id, "COMPLETED");
        assertTrue(f.consume("inbox", false).isEmpty(), "no second copy");
    }

    @Test
    void killed_between_the_consumers_commit_and_its_acknowledgement_the_redelivered_copy_is_skipped()
            throws Exception {
        Fixture f = new Fixture(dev.courier.testing.InboxListeners.LOCAL);
        f.register(f.producer, "BARRIER");
        String queue = dev.courier.testing.InboxListeners.LOCAL + "." + dev.courier.testing.InboxListeners.SUBSCRIBER;
        long added = Broker.messagesAdded(queue);
        String id = f.prepare("{\"n\": 1}", 30);
        assertEquals(
                204, f.http.post("api/test/apps/mdb/hold?messageId=" + id, "").status());
        assertEquals(200, f.http.post("api/messages/" + id + "/confirm", "").status());
        // The MDB's transaction committed (the effect's row is there); its thread holds before the acknowledgement.
        Eventually.until("the effect committed", Fixture.SETTLE, () -> f.effects(id, "sink") == 1);

        LIBERTY.kill();
        LIBERTY.start();

        Eventually.until(
                "the broker's redelivery skipped by the inbox",
                Duration.ofSeconds(60),
                () -> f.http.get("api/test/apps/mdb/handled?messageId=" + id)
                                .json()
                                .getInt("duplicates")
                        == 1);
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, "sink"), "one effect for two deliveries");
        assertEquals(
                0,
                f.http.get("api/test/apps/mdb/handled?messageId=" + id).json().getInt("count"),
                "after the restart the handler never ran for it");
        assertEquals(added + 1, Broker.messagesAdded(queue), "the broker's redelivery, not a second copy from Courier");
    }

    @Test
    void killed_under_load_the_helpers_lose_nothing_and_apply_nothing_twice() throws Exception {
        Fixture f = new Fixture();
        f.register(f.producer, "BARRIER").subscribe(5, 100, "billing", "shipping");
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
        java.util.concurrent.atomic.AtomicBoolean producing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicBoolean consuming = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger placed = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<java.util.concurrent.Future<?>> running = new java.util.ArrayList<>();
        for (int p = 0; p < 4; p++) { // the producer helper, confirming asynchronously in batches (its default)
            running.add(threads.submit(() -> {
                while (producing.get() && placed.get() < 150) {
                    try {
                        if (f.http.post(
                                        "api/test/apps/" + f.producer + "/orders?topic=" + f.topic
                                                + "&async=true&checkBackSeconds=3",
                                        "")
                                .json()
                                .containsKey("messageId")) {
                            placed.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        // the server died under this order: its transaction rolled back, or committed unconfirmed
                    }
                }
            }));
        }
        for (String s : java.util.List.of("billing", "shipping")) { // the consumer helper, reports batched
            running.add(threads.submit(() -> {
                while (consuming.get()) {
                    try {
                        f.consume(s, false, true);
                    } catch (RuntimeException e) {
                        sleepQuietly(200); // the server is down
                    }
                }
            }));
        }
        Eventually.until("orders placed before the crash", Duration.ofSeconds(60), () -> placed.get() >= 40);
        LIBERTY.kill();
        producing.set(false);
        LIBERTY.start();

        java.util.List<String> ids = f
                .http
                .get("api/messages?producer=" + f.producer + "&limit=1000")
                .json()
                .getJsonArray("messages")
                .getValuesAs(JsonObject.class)
                .stream()
                .map(m -> m.getString("id"))
                .toList();
        assertTrue(ids.size() >= 40, "messages: " + ids.size());
        // Every message ends as its producer's transaction did: a committed order is completed, once per
        // subscriber; one that rolled back (or was cut off by the crash) is cancelled by check-back, unapplied.
        f.advance(4); // past the check-back time of what was left pending
        for (String id : ids) {
            String expected = f.orders(id) == 1 ? "COMPLETED" : "CANCELLED";
            Eventually.until(id + " " + expected, Duration.ofSeconds(120), () -> expected.equals(f.state(id)));
        }
        consuming.set(false);
        for (java.util.concurrent.Future<?> r : running) {
            r.get();
        }
        threads.shutdown();
        for (String id : ids) {
            int effects = f.orders(id);
            assertEquals(effects, f.effects(id, "billing"), id + ": billing applied it as often as it was ordered");
            assertEquals(effects, f.effects(id, "shipping"), id + ": shipping applied it as often as it was ordered");
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
