package dev.courier.queue.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import dev.courier.testing.Postgres;
import dev.courier.testing.queueapp.OrderDesk;
import dev.courier.testing.queueapp.OrdersServlet;
import dev.courier.testing.queueapp.QueueWiring;
import jakarta.json.JsonObject;
import java.io.File;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The queue library ({@code target/courier-queue.jar}, as built) in an application of its own: {@code orders-app.war}
 * beside {@code courier.war}, sending and acknowledging in its own JTA transactions; and on a plain JDBC
 * connection from this test, in its local transactions. Courier's REST API sees what the library wrote.
 */
// PostgreSQL only, decided before Arquillian deploys anything (an assumption would come after the deployment).
@EnabledIfSystemProperty(named = "courier.db", matches = "postgres")
@ExtendWith(ArquillianExtension.class)
class QueueLibraryIT {

    private final Http courier = Http.server();
    /** On Liberty's default host, the management port's: the test server binds Courier alone to its own. */
    private final Http app =
            new Http("http://localhost:" + System.getProperty("it.management.port", "19180") + "/orders-app/");

    private String queue;

    @Deployment(name = "courier", order = 1, testable = false)
    static WebArchive courier() {
        return CourierDeployment.war();
    }

    @Deployment(name = "orders-app", order = 2, testable = false)
    static WebArchive ordersApp() {
        return ShrinkWrap.create(WebArchive.class, "orders-app.war")
                .addClasses(OrdersServlet.class, OrderDesk.class, QueueWiring.class)
                .addAsLibrary(ShrinkWrap.createFromZipFile(JavaArchive.class, new File("target/courier-queue.jar")));
    }

    @BeforeEach
    void setUp() throws SQLException {
        queue = "lib" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(
                201,
                courier.put("api/queues/" + queue, "{\"leaseSeconds\": 30, \"maxAttempts\": 3}")
                        .status());
        try (Connection c = Postgres.courier();
                Statement ddl = c.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS lib_order (id TEXT PRIMARY KEY)");
            ddl.execute("CREATE TABLE IF NOT EXISTS lib_effect (message_id TEXT)");
        }
    }

    @AfterEach
    void tearDown() {
        if (queue != null) {
            courier.delete("api/queues/" + queue);
        }
    }

    @Test
    void an_application_sends_in_its_own_jta_transaction_commit_gives_both_rollback_neither() throws Exception {
        Http.Response placed = app.post("shop/orders/" + queue, "");
        assertEquals(200, placed.status(), placed::toString);
        String order = placed.body();
        assertEquals(409, app.post("shop/orders/" + queue + "?fail=true", "").status());

        assertEquals(1, count("SELECT COUNT(*) FROM lib_order WHERE id = ?", order));
        assertEquals(
                1,
                count("SELECT COUNT(*) FROM courier_message WHERE queue = ?", queue),
                "the refused order sent nothing");
        JsonObject received = courier.post("api/queues/" + queue + "/receive", "{\"max\": 10}")
                .json();
        assertEquals(1, received.getJsonArray("messages").size(), received::toString);
        assertEquals(
                order,
                received.getJsonArray("messages")
                        .getJsonObject(0)
                        .getJsonObject("payload")
                        .getString("order"));
    }

    @Test
    void a_receive_and_ack_rolled_back_together_leave_the_message_as_it_was() throws Exception {
        assertEquals(200, app.post("shop/orders/" + queue, "").status());
        Http.Response failed = app.post("shop/work/" + queue + "?fail=true", "");
        assertEquals(409, failed.status(), failed::toString);
        String id = single("SELECT id FROM courier_message WHERE queue = ?", queue);
        assertEquals(0, count("SELECT COUNT(*) FROM lib_effect WHERE message_id = ?", id), "the effect rolled back");
        assertEquals(
                "0",
                single("SELECT attempt FROM courier_message WHERE id = ?", id),
                "the lease rolled back with the rest: no attempt counted, deliverable at once");
        Http.Response worked = app.post("shop/work/" + queue, "");
        assertEquals(200, worked.status(), worked::toString);
        assertEquals(id, worked.body());
        assertEquals(1, count("SELECT COUNT(*) FROM lib_effect WHERE message_id = ?", id));
    }

    @Test
    void an_ack_rolled_back_with_the_business_row_brings_the_message_back_after_its_lease() throws Exception {
        assertEquals(200, app.post("shop/orders/" + queue, "").status());
        String[] leased =
                app.post("shop/lease/" + queue + "?leaseMillis=1000", "").body().split(" ");
        assertEquals("1", leased[2]);
        Http.Response failed = app.post("shop/ack/" + leased[0] + "?fail=true&token=" + leased[1], "");
        assertEquals(409, failed.status(), failed::toString);
        assertEquals(0, count("SELECT COUNT(*) FROM lib_effect WHERE message_id = ?", leased[0]));
        assertEquals(204, app.post("shop/work/" + queue, "").status(), "leased until its lease ends");

        Thread.sleep(1000 + 2000); // the lease, then the first backoff (at most 1 s)
        Http.Response worked = app.post("shop/work/" + queue, "");
        assertEquals(200, worked.status(), worked::toString);
        assertEquals(leased[0], worked.body());
        assertEquals(1, count("SELECT COUNT(*) FROM lib_effect WHERE message_id = ?", leased[0]));
        assertEquals(0, count("SELECT COUNT(*) FROM courier_message WHERE queue = ?", queue));
    }

    @Test
    void a_retried_ack_fails_and_takes_the_business_write_back() throws Exception {
        assertEquals(200, app.post("shop/orders/" + queue, "").status());
        String[] leased = app.post("shop/lease/" + queue, "").body().split(" ");
        assertEquals(
                200,
                app.post("shop/ack/" + leased[0] + "?token=" + leased[1], "").status());
        Http.Response again = app.post("shop/ack/" + leased[0] + "?token=" + leased[1], "");
        assertEquals(409, again.status());
        assertEquals("MESSAGE_GONE", again.body());
        assertEquals(
                1,
                count("SELECT COUNT(*) FROM lib_effect WHERE message_id = ?", leased[0]),
                "the retry's effect rolled back: the effect is there once");
    }

    @Test
    void on_a_plain_jdbc_connection_the_library_joins_its_local_transaction() throws Exception {
        try (Connection connection = Postgres.courier()) {
            connection.setAutoCommit(false);
            CourierQueue jdbc = CourierQueue.on(connection);
            String kept = jdbc.send(queue, "{\"n\": 1}");
            Sent keyed = jdbc.send(queue, Send.of("{\"n\": 2}").withKey("k").withHeaders(Map.of("trace", "t \"1\"")));
            connection.commit();
            jdbc.send(queue, "{\"n\": 3}");
            connection.rollback();
            assertTrue(jdbc.send(queue, Send.of("{\"n\": 4}").withKey("k")).duplicate());
            assertEquals(
                    keyed.id(), jdbc.send(queue, Send.of("{}").withKey("k")).id());
            connection.commit();

            List<Received> received = jdbc.receive(queue, 10, Duration.ofSeconds(5));
            connection.commit();
            assertEquals(2, received.size(), received::toString);
            Received second = received.stream()
                    .filter(r -> r.id().equals(keyed.id()))
                    .findFirst()
                    .orElseThrow();
            assertEquals(Map.of("trace", "t \"1\""), second.headers());
            assertEquals(1, second.attempt());
            Instant renewed = jdbc.renewLease(second.leaseToken(), Duration.ofMinutes(1));
            assertTrue(renewed.isAfter(second.leaseExpiresAt()));
            jdbc.release(second.leaseToken(), Duration.ZERO, "later");
            Received first = received.stream()
                    .filter(r -> r.id().equals(kept))
                    .findFirst()
                    .orElseThrow();
            jdbc.ackAll(List.of(first.leaseToken()));
            connection.commit();

            QueueException stale = assertThrows(QueueException.class, () -> jdbc.ack(second.leaseToken()));
            assertEquals(QueueException.Reason.STALE_LEASE, stale.reason());
            connection.rollback();
            QueueException unknown = assertThrows(QueueException.class, () -> jdbc.send("no_such_queue", "{}"));
            assertEquals(QueueException.Reason.QUEUE_NOT_FOUND, unknown.reason());
            connection.rollback();
            QueueException notJson = assertThrows(QueueException.class, () -> jdbc.send(queue, "not json"));
            assertEquals(QueueException.Reason.INVALID, notJson.reason());
            connection.rollback();
            QueueException malformed = assertThrows(QueueException.class, () -> jdbc.ack("nonsense"));
            assertEquals(QueueException.Reason.INVALID, malformed.reason());
            connection.rollback();
            assertThrows(
                    IllegalArgumentException.class,
                    () -> jdbc.sendBatch(
                            queue, List.of(Send.of("{}"), Send.of("{}").after(Duration.ofSeconds(1)))),
                    "one delay per batch, as the SQL API takes it");

            Received again = jdbc.receive(queue, 1).get(0);
            assertEquals(keyed.id(), again.id());
            assertEquals(2, again.attempt());
            assertNotEquals(second.leaseToken(), again.leaseToken());
            jdbc.ackAndResend(again.leaseToken(), queue, Send.of("{\"n\": 5}").after(Duration.ofHours(1)));
            connection.commit();
        }
        JsonObject left = courier.get("api/queues/" + queue).json();
        assertEquals(1, left.getInt("depth"), left::toString);
        assertEquals(0, left.getInt("ready"), "the follow-up is scheduled an hour out");
        assertFalse(left.isNull("name"));
    }

    /**
     * The queue's life through the library, as an application's own work: defined in the transaction that first
     * sends to it (rolled back, neither exists), its message dead after its one attempt and listed with its history,
     * replayed paced, purged, and the queue dropped.
     */
    @Test
    void an_application_defines_its_queue_and_handles_its_dead_letters_in_its_own_transactions() throws Exception {
        String own = "libdef" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection connection = Postgres.courier()) {
            connection.setAutoCommit(false);
            CourierQueue jdbc = CourierQueue.on(connection);
            QueueDefinition once = QueueDefinition.DEFAULTS.withMaxAttempts(1);
            assertTrue(jdbc.define(own, once));
            jdbc.send(own, "{\"n\": 0}");
            connection.rollback();
            assertEquals(0, count("SELECT COUNT(*) FROM courier_queue WHERE name = ?", own), "rolled back");

            assertTrue(jdbc.define(own, once));
            assertFalse(jdbc.define(own, once.withLease(Duration.ofSeconds(20))), "an update");
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(jdbc.send(own, Send.of("{\"n\": " + i + "}").withHeaders(Map.of("h", "v" + i)))
                        .id());
            }
            connection.commit();
            for (Received message : jdbc.receive(own, 3)) {
                jdbc.release(message.leaseToken(), null, "cannot parse " + message.payload());
            }
            connection.commit();

            List<DeadLetter> dead = jdbc.deadLetters(own, null, 10);
            assertEquals(
                    ids.stream().sorted().toList(),
                    dead.stream().map(DeadLetter::id).toList());
            DeadLetter one = dead.stream()
                    .filter(d -> d.id().equals(ids.get(1)))
                    .findFirst()
                    .orElseThrow();
            assertEquals(Map.of("h", "v1"), one.headers());
            assertEquals("cannot parse {\"n\": 1}", one.lastError());
            assertTrue(one.history().contains("\"kind\": \"RELEASED\""), one.history());
            assertEquals(2, jdbc.deadLetters(own, dead.get(0).id(), 10).size(), "the page after the first");

            assertEquals(2, jdbc.replay(own, List.of(ids.get(0), ids.get(1)), 0.5), "paced: one each 2 s");
            connection.commit();
            assertEquals(1, jdbc.receive(own, 2).size(), "the second is due 2 s after the first");
            connection.rollback();
            assertEquals(1, jdbc.purge(own, List.of()));
            assertEquals(0, jdbc.purge(own, List.of(ids.get(2))), "already purged");
            connection.commit();

            QueueException bad =
                    assertThrows(QueueException.class, () -> jdbc.define(own, once.withLease(Duration.ofHours(13))));
            assertEquals(QueueException.Reason.INVALID, bad.reason(), bad::getMessage);
            connection.rollback();
            QueueException badName = assertThrows(QueueException.class, () -> jdbc.define("no-dashes", once));
            assertEquals(QueueException.Reason.INVALID, badName.reason());
            connection.rollback();

            jdbc.drop(own);
            connection.commit();
            assertEquals(0, count("SELECT COUNT(*) FROM courier_message WHERE queue = ?", own), "with its messages");
            QueueException gone = assertThrows(QueueException.class, () -> jdbc.drop(own));
            assertEquals(QueueException.Reason.QUEUE_NOT_FOUND, gone.reason());
            connection.rollback();
        }
    }

    private static int count(String sql, String value) throws SQLException {
        return Integer.parseInt(single(sql, value));
    }

    private static String single(String sql, String value) throws SQLException {
        try (Connection c = Postgres.courier();
                PreparedStatement select = c.prepareStatement(sql)) {
            select.setString(1, value);
            try (ResultSet row = select.executeQuery()) {
                assertTrue(row.next());
                return row.getString(1);
            }
        }
    }
}
