package dev.courier.queue.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Postgres;
import dev.courier.testing.queueapp.OrdersWorker;
import java.io.File;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An application using the queue library is killed with SIGKILL mid-flow, twice, while it places 1 000 keyed orders
 * and works them off (OrdersWorker, a process of its own with {@code courier-queue.jar} as built): afterwards every
 * order has been worked exactly once — none lost with the killed process, none acknowledged twice.
 */
// PostgreSQL only, decided before Arquillian deploys anything (an assumption would come after the deployment).
@EnabledIfSystemProperty(named = "courier.db", matches = "postgres")
@ExtendWith(ArquillianExtension.class)
class QueueLibraryKillIT {

    private static final int ORDERS = 1000;

    private final Http courier = Http.server();
    private String queue;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void drop() {
        if (queue != null) {
            courier.delete("api/queues/" + queue);
        }
    }

    @Test
    void none_lost_none_acknowledged_twice_when_the_application_is_killed_mid_flow() throws Exception {
        queue = "kill" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(
                201,
                courier.put(
                                "api/queues/" + queue,
                                "{\"leaseSeconds\": 5, \"maxAttempts\": 20, \"backoff\": {\"initialSeconds\": 1, \"multiplier\": 1, \"maxSeconds\": 1}}")
                        .status());
        try (Connection c = Postgres.courier();
                Statement ddl = c.createStatement()) {
            ddl.execute("DROP TABLE IF EXISTS kill_order, kill_effect");
            ddl.execute("CREATE TABLE kill_order (order_no INT PRIMARY KEY)");
            ddl.execute("CREATE TABLE kill_effect (order_no INT NOT NULL)"); // no key: a duplicate would show
        }

        for (int kill = 1; kill <= 2; kill++) {
            int placed = count("SELECT COUNT(*) FROM kill_order");
            int worked = count("SELECT COUNT(*) FROM kill_effect");
            Process worker = start();
            Eventually.until(
                    "the worker placed and worked more",
                    Duration.ofSeconds(60),
                    () -> count("SELECT COUNT(*) FROM kill_order") > placed + 200
                            && count("SELECT COUNT(*) FROM kill_effect") > worked + 100);
            worker.destroyForcibly(); // SIGKILL: mid-transaction on both threads, as likely as not
            assertTrue(worker.waitFor(10, TimeUnit.SECONDS));
        }
        Process last = start();
        try {
            Eventually.until(
                    "every order worked off",
                    Duration.ofSeconds(120),
                    () -> count("SELECT COUNT(DISTINCT order_no) FROM kill_effect") == ORDERS
                            && count("SELECT COUNT(*) FROM courier_message WHERE queue = '" + queue + "'") == 0);
        } finally {
            last.destroyForcibly();
            last.waitFor(10, TimeUnit.SECONDS);
        }
        assertEquals(ORDERS, count("SELECT COUNT(*) FROM kill_order"));
        assertEquals(ORDERS, count("SELECT COUNT(*) FROM kill_effect"), "each order worked once, none twice");
        assertEquals(
                0,
                count("SELECT COUNT(*) FROM kill_order o WHERE NOT EXISTS "
                        + "(SELECT 1 FROM kill_effect e WHERE e.order_no = o.order_no)"));
    }

    /** The worker as its own JVM: the library jar as built, the driver, the worker class; nothing else. */
    private Process start() throws Exception {
        String classPath = String.join(
                File.pathSeparator,
                new File("target/courier-queue.jar").getAbsolutePath(),
                location(org.postgresql.Driver.class),
                location(OrdersWorker.class));
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                OrdersWorker.class.getName(),
                "jdbc:postgresql://" + System.getProperty("courier.db.hosts", "localhost:5432") + "/"
                        + System.getProperty("courier.db.name", "courier"),
                System.getProperty("courier.db.user", "courier"),
                dev.courier.testing.Postgres.password(),
                queue,
                Integer.toString(ORDERS));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(new File("target/orders-worker.log")))
                .start();
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
    }

    private static int count(String sql) {
        try (Connection c = Postgres.courier();
                Statement query = c.createStatement();
                ResultSet row = query.executeQuery(sql)) {
            row.next();
            return row.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
