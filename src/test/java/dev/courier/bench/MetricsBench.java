package dev.courier.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Metrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What {@code /metrics} costs with a million messages in one queue ({@code mvn -Pbench verify}, on PostgreSQL):
 * the messages are written straight into the table (90 % live, a third of those scheduled; 10 % dead), then
 * scrapes are timed as Prometheus would make them (HTTPS, Basic), and so is the timer's refresh that reads the
 * counts. Prints a table and writes {@code target/bench/metrics.md}. Asserts only that the gauges are right.
 */
@ExtendWith(ArquillianExtension.class)
class MetricsBench {

    private static final int MESSAGES = 1_000_000;
    private static final int SCRAPES = 50;

    private final Http http = Http.server();
    private final Metrics metrics = new Metrics();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void measure_a_scrape_and_a_refresh_over_a_million_messages() throws Exception {
        String queue = "scrape_" + System.nanoTime() % 1_000_000;
        assertEquals(201, http.put("api/queues/" + queue, "{}").status());
        try (Connection db = DriverManager.getConnection(
                "jdbc:postgresql://"
                        + System.getProperty("courier.db.host", "localhost") + ":"
                        + System.getProperty("courier.db.port", "5432")
                        + "/" + System.getProperty("courier.db.name", "courier"),
                System.getProperty("courier.db.user", "courier"),
                dev.courier.testing.Postgres.password())) {
            long filling = System.nanoTime();
            try (PreparedStatement fill = db.prepareStatement("INSERT INTO courier_message (id, queue, state, "
                    + "deliver_at, attempt, version, payload_type, payload, created_at, dead_at) "
                    + "SELECT gen_random_uuid()::text, ?, CASE WHEN g % 10 = 0 THEN 'DEAD' ELSE 'READY' END, "
                    + "CASE WHEN g % 3 = 0 THEN now() + interval '1 day' ELSE now() - interval '1 minute' END, 0, 0, "
                    + "'JSON', '\\x7b7d'::bytea, now(), CASE WHEN g % 10 = 0 THEN now() END "
                    + "FROM generate_series(1, ?) g")) {
                fill.setString(1, queue);
                fill.setInt(2, MESSAGES);
                fill.executeUpdate();
            }
            try (Statement vacuum = db.createStatement()) {
                vacuum.execute("VACUUM ANALYZE courier_message"); // as autovacuum would, soon after such a load
            }
            System.out.printf(
                    Locale.ROOT, "filled %d messages in %.1f s%n", MESSAGES, (System.nanoTime() - filling) / 1e9);
            try {
                measure(queue);
            } finally {
                try (PreparedStatement empty = db.prepareStatement("DELETE FROM courier_message WHERE queue = ?")) {
                    empty.setString(1, queue);
                    empty.executeUpdate();
                }
                http.delete("api/queues/" + queue);
            }
        }
    }

    private void measure(String queue) throws Exception {
        for (int i = 0; i < 2; i++) {
            http.post("api/bench/metrics-refresh", ""); // warm-up: the fill's pages are still being written out
        }
        double[] refresh = new double[5];
        for (int i = 0; i < refresh.length; i++) {
            Http.Response refreshed = http.post("api/bench/metrics-refresh", "");
            assertEquals(200, refreshed.status(), refreshed::toString);
            refresh[i] = refreshed.json().getJsonNumber("millis").doubleValue();
        }
        Eventually.until(
                "the million counted",
                Duration.ofSeconds(30),
                () -> metrics.has("courier_queue_messages", "queue", queue, "state", "dead"));
        long live = MESSAGES - MESSAGES / 10;
        long scheduled = MESSAGES / 3 - MESSAGES / 30; // multiples of 3 that are not multiples of 10
        assertEquals(
                (double) (live - scheduled), metrics.value("courier_queue_messages", "queue", queue, "state", "ready"));
        assertEquals((double) scheduled, metrics.value("courier_queue_messages", "queue", queue, "state", "delayed"));
        assertEquals(
                (double) (MESSAGES / 10), metrics.value("courier_queue_messages", "queue", queue, "state", "dead"));

        for (int i = 0; i < 5; i++) {
            Http.management().get("metrics"); // warm-up
        }
        double[] scrape = new double[SCRAPES];
        int bytes = 0;
        for (int i = 0; i < SCRAPES; i++) {
            long start = System.nanoTime();
            Http.Response scraped = Http.management().get("metrics");
            scrape[i] = (System.nanoTime() - start) / 1e6;
            assertEquals(200, scraped.status());
            bytes = scraped.body().length();
        }
        Arrays.sort(scrape);
        Arrays.sort(refresh);
        String table = String.join(
                        "\n",
                        "| messages in the queue | scrape p50 ms | scrape p99 ms | scrape max ms | scrape bytes | refresh median ms | refresh max ms |",
                        "|---|---|---|---|---|---|---|",
                        String.format(
                                Locale.ROOT,
                                "| %,d | %.1f | %.1f | %.1f | %,d | %.1f | %.1f |",
                                MESSAGES,
                                scrape[SCRAPES / 2],
                                scrape[(int) Math.ceil(SCRAPES * 0.99) - 1],
                                scrape[SCRAPES - 1],
                                bytes,
                                refresh[refresh.length / 2],
                                refresh[refresh.length - 1]))
                + "\n";
        System.out.println("\n/metrics (all scopes, HTTPS, Basic) over a queue of a million messages:\n" + table);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/metrics.md"), table);
    }
}
