package dev.courier.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The transactional queue benchmark ({@code mvn -Pbench verify}, on PostgreSQL): Courier in the server against
 * the same SQL on raw JDBC, at 1, 4 and 8 workers and batches of 1, 10 and 100. Prints a table and writes it to
 * {@code target/bench/queue.md}. Each figure is the median of three alternating rounds. It asserts nothing about speed: figures are for reading, not for failing.
 */
@ExtendWith(ArquillianExtension.class)
class QueueBench {

    private static final int[] WORKERS = {1, 4, 8};
    private static final int[] BATCHES = {1, 10, 100};
    private static final int ROUNDS = 3;

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void measure_courier_against_raw_jdbc() throws Exception {
        RawQueueBaseline baselineRunner = new RawQueueBaseline(
                "jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":"
                        + System.getProperty("courier.db.port", "5432") + "/"
                        + System.getProperty("courier.db.name", "courier"),
                System.getProperty("courier.db.user", "courier"),
                dev.courier.testing.Postgres.password());
        List<String> rows = new ArrayList<>();
        rows.add(
                "| workers | batch | send msg/s | p50 ms | p99 ms | raw msg/s | ratio | receive+ack msg/s | p50 ms | p99 ms "
                        + "| raw msg/s | ratio |");
        rows.add("|---|---|---|---|---|---|---|---|---|---|---|---|");
        post("api/bench/queue", "{\"workers\": 2, \"batch\": 10, \"messages\": 2000}"); // warm-up
        for (int batch : BATCHES) {
            for (int workers : WORKERS) {
                int messages = batch == 1 ? 4000 : batch == 10 ? 20000 : 40000;
                // Rounds alternate Courier and raw so that both see the same machine; medians tame the noise.
                List<double[]> courier = new ArrayList<>();
                List<double[]> baseline = new ArrayList<>();
                for (int round = 0; round < ROUNDS; round++) {
                    JsonObject run = post(
                            "api/bench/queue",
                            "{\"workers\": " + workers + ", \"batch\": " + batch + ", \"messages\": " + messages + "}");
                    courier.add(figures(run.getJsonObject("send"), run.getJsonObject("receiveAndAck")));
                    String queue = "raw_" + workers + "_" + batch + "_" + round + "_" + System.nanoTime() % 100000;
                    assertEquals(
                            201,
                            http.put("api/queues/" + queue, "{\"leaseSeconds\": 60}")
                                    .status());
                    QueueBenchmark.Result raw = baselineRunner.run(queue, workers, batch, messages);
                    http.delete("api/queues/" + queue);
                    baseline.add(figures(raw.send(), raw.receiveAndAck()));
                }
                double[] c = median(courier);
                double[] r = median(baseline);
                rows.add(String.format(
                        Locale.ROOT,
                        "| %d | %d | %.0f | %.2f | %.2f | %.0f | %.0f %% | %.0f | %.2f | %.2f | %.0f | %.0f %% |",
                        workers,
                        batch,
                        c[0],
                        c[1],
                        c[2],
                        r[0],
                        100 * c[0] / r[0],
                        c[3],
                        c[4],
                        c[5],
                        r[3],
                        100 * c[3] / r[3]));
                System.out.println(rows.get(rows.size() - 1));
            }
        }
        String table = String.join("\n", rows) + "\n";
        System.out.println(
                "\nTransactional queue on PostgreSQL, Courier (in Liberty, JTA/XA datasource) vs raw JDBC:\n" + table);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/queue.md"), table);
    }

    /** send msg/s, p50, p99, receive+ack msg/s, p50, p99 */
    private static double[] figures(JsonObject send, JsonObject receive) {
        return new double[] {
            number(send, "perSecond"),
            number(send, "p50Millis"),
            number(send, "p99Millis"),
            number(receive, "perSecond"),
            number(receive, "p50Millis"),
            number(receive, "p99Millis")
        };
    }

    private static double[] figures(QueueBenchmark.Phase send, QueueBenchmark.Phase receive) {
        return new double[] {
            send.perSecond(),
            send.latencies().percentileMillis(50),
            send.latencies().percentileMillis(99),
            receive.perSecond(),
            receive.latencies().percentileMillis(50),
            receive.latencies().percentileMillis(99)
        };
    }

    private static double[] median(List<double[]> rounds) {
        double[] median = new double[rounds.get(0).length];
        for (int i = 0; i < median.length; i++) {
            final int column = i;
            double[] values =
                    rounds.stream().mapToDouble(r -> r[column]).sorted().toArray();
            median[i] = values[values.length / 2];
        }
        return median;
    }

    private static double number(JsonObject json, String name) {
        return json.getJsonNumber(name).doubleValue();
    }

    private JsonObject post(String path, String body) {
        Http.Response response = http.post(path, body);
        assertEquals(200, response.status(), response::toString);
        return response.json();
    }
}
