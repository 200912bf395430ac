package dev.courier.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The queue on one server and on two ({@code bin/postgres && mvn -Pbench-servers verify}): the README's worker
 * loop over REST (send one, receive one, ack it) by 8 workers, all on the first server or split over both; and
 * sends alone, with cross-server wake-ups on and off ({@code courier.queue.cross-server-wake-ups}), to show what
 * the wake-up costs the send path. Rounds alternate one and two servers; each figure is the median of three.
 * Prints a table and writes it to {@code target/bench/servers.md}; asserts nothing about speed.
 */
class QueueServersBench {

    private static final int WORKERS = 8;
    private static final int CYCLES = 3000;
    private static final int ROUNDS = 3;

    @Test
    void measure_one_server_against_two() throws Exception {
        List<String> rows = new ArrayList<>();
        rows.add(
                "| wake-ups | servers | cycles/s (send, receive, ack) | send only msg/s | send p50 ms | send p99 ms |");
        rows.add("|---|---|---|---|---|---|");
        for (boolean wakeUps : new boolean[] {false, true}) {
            String flag = Boolean.toString(wakeUps);
            LibertyProcess first = new LibertyProcess().environment("COURIER_QUEUE_CROSS_SERVER_WAKE_UPS", flag);
            LibertyProcess second = LibertyProcess.second().environment("COURIER_QUEUE_CROSS_SERVER_WAKE_UPS", flag);
            LibertyProcess.startAll(first, second);
            try {
                List<Http> one = List.of(first.http());
                List<Http> both = List.of(first.http(), second.http());
                cycles(both, 1000); // warm-up, both servers
                sends(both, 1000);
                List<Double> cyclesOne = new ArrayList<>();
                List<Double> cyclesTwo = new ArrayList<>();
                List<double[]> sendsOne = new ArrayList<>();
                List<double[]> sendsTwo = new ArrayList<>();
                for (int round = 0; round < ROUNDS; round++) {
                    cyclesOne.add(cycles(one, CYCLES));
                    cyclesTwo.add(cycles(both, CYCLES));
                    sendsOne.add(sends(one, CYCLES));
                    sendsTwo.add(sends(both, CYCLES));
                }
                rows.add(row(wakeUps, 1, cyclesOne, sendsOne));
                rows.add(row(wakeUps, 2, cyclesTwo, sendsTwo));
                System.out.println(rows.get(rows.size() - 2) + "\n" + rows.get(rows.size() - 1));
            } finally {
                LibertyProcess.stopAll(first, second);
            }
        }
        String table = String.join("\n", rows) + "\n";
        System.out.println("\nThe queue over REST on one and two servers (" + WORKERS + " workers, one PostgreSQL, "
                + Runtime.getRuntime().availableProcessors() + " cores):\n" + table);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/servers.md"), table);
    }

    private static String row(boolean wakeUps, int servers, List<Double> cycles, List<double[]> sends) {
        sends.sort((a, b) -> Double.compare(a[0], b[0]));
        double[] send = sends.get(sends.size() / 2);
        Collections.sort(cycles);
        return String.format(
                Locale.ROOT,
                "| %s | %d | %.0f | %.0f | %.2f | %.2f |",
                wakeUps ? "on" : "off",
                servers,
                cycles.get(cycles.size() / 2),
                send[0],
                send[1],
                send[2]);
    }

    /** Workers loop send, receive, ack on their server (worker i on server i mod n). @return cycles per second */
    private static double cycles(List<Http> servers, int total) throws Exception {
        String queue = define(servers.get(0));
        AtomicInteger done = new AtomicInteger();
        long start = System.nanoTime();
        run(servers, w -> {
            Http http = servers.get(w % servers.size());
            while (done.get() < total) {
                assertEquals(
                        201,
                        http.post("api/queues/" + queue + "/messages", "{\"payload\": 1}")
                                .status());
                JsonObject batch = http.post("api/queues/" + queue + "/receive", "{\"max\": 1}")
                        .json();
                for (JsonObject message : batch.getJsonArray("messages").getValuesAs(JsonObject.class)) {
                    Http.Response ack = http.send(HttpRequest.newBuilder(
                                    http.uri("api/queues/" + queue + "/messages/" + message.getString("id")))
                            .header("Lease-Token", message.getString("leaseToken"))
                            .DELETE());
                    if (ack.status() == 204) {
                        done.incrementAndGet();
                    }
                }
            }
        });
        double perSecond = done.get() / ((System.nanoTime() - start) / 1e9);
        servers.get(0).delete("api/queues/" + queue);
        return perSecond;
    }

    /** Workers only send. @return {msg/s, p50 ms, p99 ms} */
    private static double[] sends(List<Http> servers, int total) throws Exception {
        String queue = define(servers.get(0));
        AtomicInteger sent = new AtomicInteger();
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime();
        run(servers, w -> {
            Http http = servers.get(w % servers.size());
            while (sent.getAndIncrement() < total) {
                long t = System.nanoTime();
                assertEquals(
                        201,
                        http.post("api/queues/" + queue + "/messages", "{\"payload\": 1}")
                                .status());
                latencies.add(System.nanoTime() - t);
            }
        });
        double perSecond = latencies.size() / ((System.nanoTime() - start) / 1e9);
        servers.get(0).delete("api/queues/" + queue);
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        return new double[] {perSecond, sorted.get(sorted.size() / 2) / 1e6, sorted.get(sorted.size() * 99 / 100) / 1e6
        };
    }

    private interface Worker {
        void run(int index) throws Exception;
    }

    private static void run(List<Http> servers, Worker worker) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(WORKERS);
        try {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int index = w;
                all.add(CompletableFuture.runAsync(
                        () -> {
                            try {
                                worker.run(index);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        threads));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .get(10, java.util.concurrent.TimeUnit.MINUTES);
        } finally {
            threads.shutdown();
        }
    }

    private static String define(Http http) {
        String queue = "bench" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(
                201, http.put("api/queues/" + queue, "{\"leaseSeconds\": 30}").status());
        return queue;
    }
}
