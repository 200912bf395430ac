package dev.courier.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.ToDoubleFunction;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Courier's queue against PGMQ, side by side in one run ({@code mvn -Pbench verify}, PostgreSQL with PGMQ loaded
 * by {@code bin/postgres}): a worker's loop — send a batch, then acknowledge the last batch and receive the next —
 * on PGMQ over JDBC, on Courier over REST, on Courier's Java API in the server, and on Courier's own SQL over plain
 * JDBC. Rounds alternate the four; each figure is the median of three rounds. Also the CPU each costs, from
 * {@code /proc}: Liberty's and the REST client's per REST request, PostgreSQL's per message. Prints the table and writes
 * {@code target/bench/queue-cycle.md}. It asserts nothing about speed.
 */
@ExtendWith(ArquillianExtension.class)
class QueueCycleBench {

    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
    private static final String[] SYSTEMS = {"PGMQ", "REST", "Java", "JDBC", "SQL", "Library"};
    /**
     * -Dbench.only=REST (or PGMQ,SQL): run some of {@link #SYSTEMS} only, e.g. under a profiler (the table then has
     * gaps).
     */
    private static final List<String> ONLY = Arrays.stream(
                    System.getProperty("bench.only", "").split(","))
            .filter(s -> !s.isBlank())
            .toList();

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void measure_courier_against_pgmq() throws Exception {
        String host = "jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":"
                + System.getProperty("courier.db.port", "5432") + "/";
        String user = System.getProperty("courier.db.user", "courier");
        String password = dev.courier.testing.Postgres.password();
        PgmqCycle pgmq = new PgmqCycle(host + System.getProperty("courier.pgmq.db.name", "pgmq_bench"), user, password);
        assumeTrue(pgmq.available(), "PGMQ is not loaded: run bin/postgres with ../shared/peers present");
        RawQueueBaseline jdbc =
                new RawQueueBaseline(host + System.getProperty("courier.db.name", "courier"), user, password);
        RestCycle rest = new RestCycle(http);
        SqlApiCycle sql = new SqlApiCycle(host + System.getProperty("courier.db.name", "courier"), user, password);

        List<String> rows = new ArrayList<>();
        rows.add(
                "| workers | batch | PGMQ msg/s | REST msg/s | REST / PGMQ | Java msg/s | Java / PGMQ | JDBC msg/s "
                        + "| Java / JDBC | Liberty CPU ms per REST request | client CPU ms per REST request "
                        + "| PostgreSQL CPU ms per message: PGMQ / REST / Java / JDBC / SQL | SQL msg/s | SQL / PGMQ | Library msg/s | Library / SQL |");
        rows.add("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        // Warm-up until the JIT has settled: Liberty's CPU per request falls about fourfold over the first ~30 000
        // requests of a fresh server, so fewer would measure the compiler, not Courier.
        for (String system : SYSTEMS) {
            if (skipped(system)) {
                continue;
            }
            run(system, 4, 10, 20000, pgmq, rest, jdbc, sql);
            run(system, 4, 1, system.equals("REST") ? 15000 : 3000, pgmq, rest, jdbc, sql);
        }
        // -Dbench.configurations=4x1,8x100 (workers x batch) and -Dbench.rounds narrow a run, e.g. for a profile.
        int[][] configurations = Arrays.stream(System.getProperty("bench.configurations", "1x1,4x1,8x1,4x100,8x100")
                        .split(","))
                .map(c -> Arrays.stream(c.trim().split("x"))
                        .mapToInt(Integer::parseInt)
                        .toArray())
                .toArray(int[][]::new);
        for (int[] configuration : configurations) {
            int workers = configuration[0];
            int batch = configuration[1];
            int messages = batch == 1 ? 1000 * Math.min(workers, 3) : 40000;
            Figures[][] figures = new Figures[SYSTEMS.length][ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                for (int s = 0; s < SYSTEMS.length; s++) {
                    figures[s][round] = skipped(SYSTEMS[s])
                            ? Figures.NONE
                            : run(SYSTEMS[s], workers, batch, messages, pgmq, rest, jdbc, sql);
                }
            }
            double[] perSecond = new double[SYSTEMS.length];
            double[] postgres = new double[SYSTEMS.length];
            for (int s = 0; s < SYSTEMS.length; s++) {
                perSecond[s] = median(figures[s], Figures::perSecond);
                postgres[s] = median(figures[s], Figures::postgresPerMessage);
            }
            Figures[] overRest = figures[1];
            rows.add(String.format(
                    Locale.ROOT,
                    "| %d | %d | %.0f | %.0f | %.2f | %.0f | %.2f | %.0f | %.0f %% | %.2f | %.2f | %.2f / %.2f / %.2f / %.2f / %.2f "
                            + "| %.0f | %.2f | %.0f | %.2f |",
                    workers,
                    batch,
                    perSecond[0],
                    perSecond[1],
                    perSecond[1] / perSecond[0],
                    perSecond[2],
                    perSecond[2] / perSecond[0],
                    perSecond[3],
                    100 * perSecond[2] / perSecond[3],
                    median(overRest, Figures::libertyPerRequest),
                    median(overRest, Figures::clientPerRequest),
                    postgres[0],
                    postgres[1],
                    postgres[2],
                    postgres[3],
                    postgres[4],
                    perSecond[4],
                    perSecond[4] / perSecond[0],
                    perSecond[5],
                    perSecond[5] / perSecond[4]));
            System.out.println(rows.get(rows.size() - 1));
        }
        String table = String.join("\n", rows) + "\n";
        System.out.println("\nQueue cycle (send, then ack + receive), PostgreSQL, Courier vs PGMQ:\n" + table);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/queue-cycle.md"), table);
    }

    /**
     * What one run measured: messages a second, and CPU milliseconds: Liberty's and the client's per REST request
     * (NaN for the systems that make none), PostgreSQL's per message.
     */
    private record Figures(
            double perSecond, double libertyPerRequest, double postgresPerMessage, double clientPerRequest) {

        static final Figures NONE = new Figures(Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }

    /** One measured run. */
    private Figures run(
            String system,
            int workers,
            int batch,
            int messages,
            PgmqCycle pgmq,
            RestCycle rest,
            RawQueueBaseline jdbc,
            SqlApiCycle sql)
            throws Exception {
        String queue = "cyc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        boolean courierQueue =
                system.equals("REST") || system.equals("JDBC") || system.equals("SQL") || system.equals("Library");
        if (courierQueue) {
            assertEquals(
                    201,
                    http.put("api/queues/" + queue, "{\"leaseSeconds\": 60, \"maxAttempts\": 10}")
                            .status());
        }
        try {
            long requestsBefore = rest.requests();
            double libertyBefore = ProcessCpu.liberty("courier");
            double postgresBefore = ProcessCpu.postgres();
            double clientBefore = ProcessCpu.client();
            QueueBenchmark.Phase phase = switch (system) {
                case "PGMQ" -> pgmq.cycle(queue, workers, batch, messages);
                case "REST" -> rest.cycle(queue, workers, batch, messages);
                case "Java" -> javaCycle(workers, batch, messages);
                case "SQL" -> sql.cycle(queue, workers, batch, messages);
                case "Library" -> sql.libraryCycle(queue, workers, batch, messages);
                default -> jdbc.cycle(queue, workers, batch, messages);
            };
            double liberty = ProcessCpu.liberty("courier") - libertyBefore;
            double postgresCpu = ProcessCpu.postgres() - postgresBefore;
            double client = ProcessCpu.client() - clientBefore;
            long requests = rest.requests() - requestsBefore;
            Figures figures = new Figures(
                    phase.perSecond(),
                    requests > 0 ? liberty / requests : Double.NaN,
                    postgresCpu / phase.messages(),
                    requests > 0 ? client / requests : Double.NaN);
            // Per REST request where there were requests; else per message (the other systems' clients).
            double units = requests > 0 ? requests : phase.messages();
            String unit = requests > 0 ? "request" : "message";
            System.out.printf(
                    Locale.ROOT,
                    "  %s %dx%d: %.0f msg/s, Liberty %.2f ms CPU per %s, PostgreSQL %.2f ms CPU per message, "
                            + "client %.2f ms CPU per %s%n",
                    system,
                    workers,
                    batch,
                    figures.perSecond(),
                    liberty / units,
                    unit,
                    figures.postgresPerMessage(),
                    client / units,
                    unit);
            return figures;
        } finally {
            if (courierQueue) {
                http.delete("api/queues/" + queue);
            }
        }
    }

    private QueueBenchmark.Phase javaCycle(int workers, int batch, int messages) {
        Http.Response response = http.post(
                "api/bench/queue-cycle",
                "{\"workers\": " + workers + ", \"batch\": " + batch + ", \"messages\": " + messages + "}");
        assertEquals(200, response.status(), response::toString);
        JsonObject phase = response.json();
        return new QueueBenchmark.Phase(
                phase.getInt("messages"), phase.getJsonNumber("seconds").doubleValue(), new Latencies(new long[] {1}));
    }

    private static boolean skipped(String system) {
        return !ONLY.isEmpty() && !ONLY.contains(system);
    }

    private static double median(Figures[] rounds, ToDoubleFunction<Figures> figure) {
        double[] values = Arrays.stream(rounds).mapToDouble(figure).sorted().toArray();
        return values[values.length / 2];
    }
}
