package dev.courier.lab;

import dev.courier.bench.Latencies;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The comparison lab ({@code bin/postgres && mvn -Plab verify}, on PostgreSQL): the scenario's orders through
 * each mode at 1, 4, 16 and 64 concurrent clients over HTTP, then, from the databases themselves, how long each
 * order took to become consistent (order committed → stock reserved) and whether any was lost or duplicated.
 * Writes {@code target/lab/report.md} with tables, PNG plots and CSV. Figures for reading: it asserts nothing about speed.
 */
@ExtendWith(ArquillianExtension.class)
class ComparisonLab {

    private static final String[] MODES = {"xa", "rms", "queue"};
    private static final int[] CONCURRENCY = {1, 4, 16, 64};
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("lab.seconds", 8));
    private static final Duration QUIESCENCE = Duration.ofSeconds(90);

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void compare_the_three_mechanisms() throws Exception {
        Path dir = Path.of("target/lab");
        System.out.println("lab: measuring the physical anchors (pg_test_fsync, pgbench) ...");
        Anchors anchors = Anchors.measure(dir.resolve("anchors"));
        System.out.printf("lab: fdatasync %.0f/s, pgbench insert %.0f tps%n", anchors.fdatasyncPerSecond(), anchors.pgbenchInsertTps());
        Eventually.until("the rms mode set up", Duration.ofSeconds(60),
                () -> http.post("api/scenario/orders?mode=rms", "").status() == 201);
        List<LabReport.Run> runs = new ArrayList<>();
        try (LabDatabases databases = new LabDatabases()) {
            for (String mode : MODES) {
                load(mode, 4, Duration.ofSeconds(3)); // warm-up
                for (int clients : CONCURRENCY) {
                    LabReport.Run run = run(databases, mode, clients);
                    runs.add(run);
                    System.out.printf("lab: %-5s x%-2d %6.0f orders/s  p50 %6.1f ms  p99 %7.1f ms  consistent after p50 %7.1f ms"
                            + "  lost %d  duplicated %d%n", mode, clients, run.throughput(), run.p50(), run.p99(),
                            run.consistencyP50(), run.lost(), run.duplicated());
                }
            }
        }
        Path report = LabReport.write(dir, anchors, runs);
        System.out.println("lab: report written to " + report.toAbsolutePath());
    }

    private LabReport.Run run(LabDatabases databases, String mode, int clients) throws Exception {
        Load load = load(mode, clients, RUN);
        List<String> ids = load.ids();
        // Quiescence: every accepted order has an outcome (reservation or rejection), or the wait runs out.
        long deadline = System.nanoTime() + QUIESCENCE.toNanos();
        Map<String, LabDatabases.Outcome> outcomes = databases.outcomes(ids);
        while (outcomes.values().stream().anyMatch(o -> o.reservations() == 0 && !o.state().equals("REJECTED"))
                && System.nanoTime() < deadline) {
            Thread.sleep(500);
            outcomes = databases.outcomes(ids);
        }
        int reserved = 0;
        int rejected = 0;
        int lost = ids.size() - outcomes.size();
        int duplicated = 0;
        List<Long> toConsistency = new ArrayList<>();
        for (LabDatabases.Outcome o : outcomes.values()) {
            boolean isRejected = o.state().equals("REJECTED");
            if (o.reservations() > 0) {
                reserved++;
                toConsistency.add(Math.max(0, o.reservedMillis() - o.createdMillis()) * 1_000_000L);
            }
            if (isRejected) {
                rejected++;
            }
            if (o.reservations() == 0 && !isRejected) {
                lost++;
            }
            if (o.reservations() > 1 || (o.reservations() > 0 && isRejected)) {
                duplicated++;
            }
        }
        Latencies upstream = new Latencies(load.nanos());
        Latencies consistency = new Latencies(toConsistency.stream().mapToLong(Long::longValue).toArray());
        return new LabReport.Run(mode, clients, ids.size(), load.errors(), load.seconds(), upstream.percentileMillis(50),
                upstream.percentileMillis(95), upstream.percentileMillis(99), consistency.percentileMillis(50), consistency.percentileMillis(99), reserved,
                rejected, lost, duplicated, databases.negativeStock());
    }

    /** What one load run placed: accepted order ids, latencies, errors. */
    private record Load(List<String> ids, long[] nanos, int errors, double seconds) {
    }

    private Load load(String mode, int clients, Duration length) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        List<String> ids = Collections.synchronizedList(new ArrayList<>());
        List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger errors = new AtomicInteger();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            running.add(threads.submit(() -> {
                while (System.nanoTime() < end) {
                    long begin = System.nanoTime();
                    try {
                        Http.Response placed = http.post("api/scenario/orders?mode=" + mode, "");
                        if (placed.status() == 201) {
                            nanos.add(System.nanoTime() - begin);
                            ids.add(placed.json().getString("orderId"));
                        } else {
                            errors.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                    }
                }
            }));
        }
        for (Future<?> future : running) {
            future.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        threads.shutdown();
        return new Load(List.copyOf(ids), nanos.stream().mapToLong(Long::longValue).toArray(), errors.get(), seconds);
    }
}
