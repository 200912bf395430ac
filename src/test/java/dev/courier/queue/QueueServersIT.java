package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transactional queue on two servers of one installation sharing one PostgreSQL database and one broker;
 * the second server's clock runs 30 s ahead ({@code courier.clock.skew}). Both poll slowly
 * ({@code courier.queue.poll-interval-max} 30 s), so a receiver that answers soon after a send on the other
 * server was woken, not polling. PostgreSQL only; runs in the crash execution, which manages its own servers.
 */
class QueueServersIT {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final int MAX_QUEUES = 60;
    private static LibertyProcess first;
    private static LibertyProcess second;

    @BeforeAll
    static void startServers() throws Exception {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "needs a shared database");
        // The in-container tests before this moved their server's time days ahead (SettableClock), and that
        // server's sweeper lease with it: free the turn, so these servers' sweeping starts from a clean slate.
        try (Connection db = database();
                var reset = db.createStatement()) {
            reset.executeUpdate(
                    "UPDATE courier_job_lease SET owner = NULL, expires_at = TIMESTAMPTZ '1970-01-01 00:00:00+00'");
        }
        first = new LibertyProcess()
                .environment("COURIER_QUEUE_POLL_INTERVAL_MAX", "PT30S")
                .environment("COURIER_QUEUE_MAX_QUEUES", Integer.toString(MAX_QUEUES));
        second = LibertyProcess.second()
                .environment("COURIER_QUEUE_POLL_INTERVAL_MAX", "PT30S")
                .environment("COURIER_QUEUE_MAX_QUEUES", Integer.toString(MAX_QUEUES))
                .environment("COURIER_CLOCK_SKEW", "PT30S")
                // Its copies of queue definitions live a minute: only the first server's notice can renew them soon.
                .environment("COURIER_QUEUE_SETTINGS_TTL", "PT60S");
        LibertyProcess.startAll(first, second);
    }

    @AfterAll
    static void stopServers() throws Exception {
        LibertyProcess.stopAll(first, second);
    }

    @Test
    void should_wake_a_receiver_waiting_on_one_server_for_a_send_on_the_other() throws Exception {
        String queue = define(first.http(), "wake");
        // The waiter's polls back off to 50 ms · 2^n: after 14 s its next poll is at 25.5 s.
        CompletableFuture<JsonObject> waiting = CompletableFuture.supplyAsync(() -> second.http()
                .post("api/queues/" + queue + "/receive", "{\"max\": 1, \"waitSeconds\": 40}")
                .json());
        Thread.sleep(14_000);
        long sent = System.nanoTime();
        assertEquals(
                201,
                first.http()
                        .post("api/queues/" + queue + "/messages", "{\"payload\": 1}")
                        .status());
        JsonObject received = waiting.get();
        Duration after = Duration.ofNanos(System.nanoTime() - sent);

        assertEquals(1, received.getJsonArray("messages").size());
        assertTrue(
                after.compareTo(Duration.ofSeconds(5)) < 0,
                "answered " + after.toMillis() + " ms after the send: a poll would have taken 11 s");

        // The figure for the README: how soon a waiter on the second server answers a send on the first.
        List<Long> latencies = new ArrayList<>();
        for (int round = 0; round < 15; round++) {
            CompletableFuture<JsonObject> next = CompletableFuture.supplyAsync(() -> second.http()
                    .post("api/queues/" + queue + "/receive", "{\"max\": 1, \"waitSeconds\": 10}")
                    .json());
            Thread.sleep(1_700); // past the 1.55 s poll: the next is at 3.15 s
            long start = System.nanoTime();
            first.http().post("api/queues/" + queue + "/messages", "{\"payload\": 1}");
            assertEquals(1, next.get().getJsonArray("messages").size());
            latencies.add((System.nanoTime() - start) / 1_000_000);
        }
        latencies.sort(Comparator.naturalOrder());
        System.out.println("cross-server wake-up, send start to the other server's answer: median "
                + latencies.get(latencies.size() / 2) + " ms, max " + latencies.get(latencies.size() - 1)
                + " ms over " + latencies.size() + " rounds " + latencies);
    }

    @Test
    void should_ack_every_message_once_across_servers_with_crashing_receivers_and_a_skewed_clock() throws Exception {
        String queue = define(first.http(), "many");
        Instant began = Instant.now();
        int messages = 10_000;
        Set<String> sent = ConcurrentHashMap.newKeySet();
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicateAcks = new AtomicInteger();
        AtomicInteger abandoned = new AtomicInteger();
        Map<String, List<JsonObject>> leases = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newCachedThreadPool();
        List<CompletableFuture<Void>> work = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            Http server = s % 2 == 0 ? first.http() : second.http();
            int from = s * messages / 4;
            work.add(CompletableFuture.runAsync(
                    () -> {
                        for (int n = from; n < from + messages / 4; n++) {
                            Http.Response response =
                                    server.post("api/queues/" + queue + "/messages", "{\"payload\": " + n + "}");
                            assertEquals(201, response.status(), response::toString);
                            sent.add(response.json().getString("id"));
                        }
                    },
                    threads));
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        for (int r = 0; r < 8; r++) {
            Http server = r % 2 == 0 ? first.http() : second.http();
            work.add(CompletableFuture.runAsync(
                    () -> {
                        while (acked.size() < messages && System.nanoTime() < deadline) {
                            Http.Response batch = server.post(
                                    "api/queues/" + queue + "/receive", "{\"max\": 10, \"waitSeconds\": 1}");
                            if (batch.status() == 429) {
                                // Four receivers per server at a limit of four: a poll that comes back at once may find
                                // its last wait not yet counted out. The answer says retry later, as a client would.
                                LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
                                continue;
                            }
                            assertEquals(200, batch.status(), batch::toString);
                            for (JsonObject message :
                                    batch.json().getJsonArray("messages").getValuesAs(JsonObject.class)) {
                                leases.computeIfAbsent(
                                                message.getString("id"),
                                                id -> new java.util.concurrent.CopyOnWriteArrayList<>())
                                        .add(message);
                            }
                            if (ThreadLocalRandom.current().nextInt(100) < 3) {
                                abandoned.incrementAndGet(); // the receiver "crashes": its leases run out, others
                                // redeliver
                                continue;
                            }
                            for (JsonObject message :
                                    batch.json().getJsonArray("messages").getValuesAs(JsonObject.class)) {
                                Http.Response ack = server.send(HttpRequest.newBuilder(server.uri(
                                                "api/queues/" + queue + "/messages/" + message.getString("id")))
                                        .header("Lease-Token", message.getString("leaseToken"))
                                        .DELETE());
                                if (ack.status() == 204 && !acked.add(message.getString("id"))) {
                                    duplicateAcks.incrementAndGet();
                                }
                            }
                        }
                    },
                    threads));
        }
        CompletableFuture.allOf(work.toArray(CompletableFuture[]::new)).join();
        threads.shutdown();

        assertEquals(messages, sent.size());
        assertEquals(0, duplicateAcks.get(), "no message acknowledged twice");
        assertEquals(sent, acked, "every message acknowledged");
        assertTrue(abandoned.get() > 0, "some receivers crashed holding leases");
        int redelivered = 0;
        for (List<JsonObject> deliveries : leases.values()) {
            List<JsonObject> byAttempt = deliveries.stream()
                    .sorted(Comparator.comparingInt(d -> d.getInt("attempt")))
                    .toList();
            for (int i = 1; i < byAttempt.size(); i++) {
                redelivered++;
                Instant previousEnd = Instant.parse(byAttempt.get(i - 1).getString("leaseExpiresAt"));
                Instant nextStart = Instant.parse(byAttempt.get(i).getString("leaseExpiresAt"))
                        .minus(LEASE);
                assertFalse(
                        nextStart.isBefore(previousEnd),
                        "lease " + byAttempt.get(i) + " began before " + byAttempt.get(i - 1)
                                + " ended, in database time");
            }
        }
        assertTrue(redelivered > 0, "abandoned leases were taken again");

        List<Run> runs = sweeps(began);
        assertTrue(runs.size() >= 5, "the sweeper ran every 5 s: " + runs);
        for (Run a : runs) {
            for (Run b : runs) {
                if (!a.owner.equals(b.owner)) {
                    assertTrue(
                            !a.started.isBefore(b.finished) || !b.started.isBefore(a.finished),
                            "two servers swept at once: " + a + " and " + b);
                }
            }
        }
        System.out.println("two servers: " + messages + " messages acked once each; " + abandoned.get()
                + " batches abandoned, " + redelivered + " redeliveries; " + runs.size() + " sweeps by "
                + runs.stream().map(Run::owner).distinct().toList());
    }

    @Test
    void should_hold_the_queue_limit_under_concurrent_creates_on_both_servers() throws Exception {
        int existing =
                first.http().get("api/queues").json().getJsonArray("queues").size();
        Assumptions.assumeTrue(existing < MAX_QUEUES - 20, "room for the race: " + existing + " queues exist");
        ExecutorService threads = Executors.newFixedThreadPool(16);
        List<CompletableFuture<Integer>> creates = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 2 * (MAX_QUEUES - existing); i++) {
            Http server = i % 2 == 0 ? first.http() : second.http();
            String name =
                    "limit" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            names.add(name);
            creates.add(CompletableFuture.supplyAsync(
                    () -> server.put("api/queues/" + name, "{}").status(), threads));
        }
        List<Integer> statuses = creates.stream().map(CompletableFuture::join).toList();
        threads.shutdown();
        try {
            assertEquals(
                    MAX_QUEUES,
                    first.http().get("api/queues").json().getJsonArray("queues").size(),
                    "exactly the limit, never past it: " + statuses);
            assertEquals(
                    MAX_QUEUES - existing,
                    statuses.stream().filter(s -> s == 201).count());
            assertTrue(statuses.stream().allMatch(s -> s == 201 || s == 409), statuses::toString);
        } finally {
            names.forEach(name -> first.http().delete("api/queues/" + name));
        }
    }

    @Test
    void should_send_once_for_one_key_sent_on_both_servers_at_once() throws Exception {
        String queue = define(first.http(), "key");
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<CompletableFuture<String>> sends = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Http server = i % 2 == 0 ? first.http() : second.http();
            sends.add(CompletableFuture.supplyAsync(
                    () -> server.post("api/queues/" + queue + "/messages", "{\"payload\": 1, \"key\": \"order-42\"}")
                            .json()
                            .getString("id"),
                    threads));
        }
        Set<String> ids = new java.util.HashSet<>(
                sends.stream().map(CompletableFuture::join).toList());
        threads.shutdown();

        assertEquals(1, ids.size(), "every send answered with the one message: " + ids);
        assertEquals(1, first.http().get("api/queues/" + queue).json().getInt("depth"));

        // Received on one server, acked on the other, the follow-up sent there: one cycle across servers.
        JsonObject message = second.http()
                .post("api/queues/" + queue + "/receive", "{\"max\": 1}")
                .json()
                .getJsonArray("messages")
                .getJsonObject(0);
        Http.Response ack = first.http()
                .send(HttpRequest.newBuilder(
                                first.http().uri("api/queues/" + queue + "/messages/" + message.getString("id")))
                        .header("Lease-Token", message.getString("leaseToken"))
                        .DELETE());
        assertEquals(204, ack.status(), ack::toString);
        assertEquals(
                201,
                first.http()
                        .post("api/queues/" + queue + "/messages", "{\"payload\": 2}")
                        .status());
        JsonObject next = second.http()
                .post("api/queues/" + queue + "/receive", "{\"max\": 1}")
                .json()
                .getJsonArray("messages")
                .getJsonObject(0);
        assertEquals(2, next.getInt("payload"));
        assertEquals(0, first.http().get("api/queues/" + queue).json().getInt("dead"));
    }

    @Test
    void should_follow_a_definition_changed_or_dropped_on_the_other_server() {
        String queue = define(first.http(), "spec");
        assertEquals(LEASE.toSeconds(), leaseSeconds(second.http(), queue), 1.0); // the second now holds a copy

        assertEquals(
                200,
                first.http().put("api/queues/" + queue, "{\"leaseSeconds\": 9}").status());
        // Only the first server's notice can make the second forget its copy within the wait (its copies live 60 s).
        long changed = System.nanoTime();
        dev.courier.testing.Eventually.until(
                "the second server uses the new lease",
                Duration.ofSeconds(5),
                () -> leaseSeconds(second.http(), queue) > 8);
        System.out.println("definition change seen on the other server after "
                + (System.nanoTime() - changed) / 1_000_000 + " ms");

        assertEquals(204, first.http().delete("api/queues/" + queue).status());
        Http.Response sent = second.http().post("api/queues/" + queue + "/messages", "{\"payload\": 1}");
        assertEquals(404, sent.status(), "a send to a queue dropped elsewhere fails at once: " + sent);
        assertEquals("application/problem+json", sent.contentType());
    }

    /** Sends a message on {@code http}'s server and receives it there: the lease it gets, in seconds. */
    private static double leaseSeconds(Http http, String queue) {
        Http.Response sent = http.post("api/queues/" + queue + "/messages", "{\"payload\": 1}");
        assertEquals(201, sent.status(), sent::toString);
        JsonObject delivery = http.post("api/queues/" + queue + "/receive", "{\"max\": 1}")
                .json()
                .getJsonArray("messages")
                .getJsonObject(0);
        return Duration.between(
                                Instant.parse(sent.json().getString("deliverAt")),
                                Instant.parse(delivery.getString("leaseExpiresAt")))
                        .toMillis()
                / 1000.0;
    }

    private static String define(Http http, String prefix) {
        String queue = prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Http.Response created = http.put(
                "api/queues/" + queue,
                "{\"leaseSeconds\": " + LEASE.toSeconds()
                        + ", \"maxAttempts\": 100, \"backoff\": {\"initialSeconds\": 0, \"multiplier\": 1, \"maxSeconds\": 0}}");
        assertEquals(201, created.status(), created::toString);
        return queue;
    }

    private record Run(String owner, Instant started, Instant finished) {}

    private static Connection database() throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":"
                        + System.getProperty("courier.db.port", "5432") + "/"
                        + System.getProperty("courier.db.name", "courier"),
                System.getProperty("courier.db.user", "courier"),
                dev.courier.testing.Postgres.password());
    }

    /** The sweeps since {@code since} until now (not the shifted future runs of earlier in-container tests). */
    private static List<Run> sweeps(Instant since) throws SQLException {
        try (Connection db = database();
                PreparedStatement select = db.prepareStatement("SELECT owner, started_at, finished_at "
                        + "FROM courier_sweep_run WHERE started_at >= ? AND started_at <= clock_timestamp()")) {
            select.setTimestamp(1, Timestamp.from(since));
            List<Run> runs = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    runs.add(new Run(
                            rows.getString(1),
                            rows.getTimestamp(2).toInstant(),
                            rows.getTimestamp(3).toInstant()));
                }
            }
            return runs;
        }
    }
}
