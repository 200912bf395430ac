package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Metrics;
import dev.courier.testing.Postgres;
import jakarta.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One Courier serving queues in two databases: its own and an application's ({@code courier.queue.databases} is
 * {@code orders=jdbc/orders} in the tests: on PostgreSQL the database {@code courier_orders} on the second server,
 * on Derby an embedded one). A queue made in the application's database keeps its rows there, beside the
 * application's, where the application sends in its own transaction through the SQL API; Courier receives,
 * acknowledges, sweeps (the database's own turn), lists and counts it, naming the database in the queue's JSON and
 * in {@code /metrics}. Names are unique across the databases. An application's database that is down hides its
 * queues from the list, not Courier's, and a lookup that cannot read it does not answer "no such queue".
 */
@ExtendWith(ArquillianExtension.class)
class QueueDatabasesIT {

    private static final boolean POSTGRES = "postgres".equals(System.getProperty("courier.db"));

    private final Http http = Http.server();
    private final String queue =
            "orders" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String local =
            "local" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void drop() {
        http.delete("api/queues/" + queue);
        http.delete("api/queues/" + local);
    }

    @Test
    void a_queue_in_the_applications_database_is_served_by_courier_beside_its_own() throws Exception {
        Http.Response made = http.put("api/queues/" + queue, "{\"database\": \"orders\", \"maxAttempts\": 1}");
        assertEquals(201, made.status(), made::toString);
        assertEquals("orders", made.json().getString("database"));
        assertEquals(201, http.put("api/queues/" + local, "{}").status());
        assertEquals(
                "courier", http.get("api/queues/" + local).json().getString("database"), "Courier's own by default");
        List<String> listed =
                http.get("api/queues").json().getJsonArray("queues").getValuesAs(JsonObject.class).stream()
                        .filter(q -> q.getString("name").equals(queue)
                                || q.getString("name").equals(local))
                        .map(q -> q.getString("name") + "@" + q.getString("database"))
                        .sorted()
                        .toList();
        assertEquals(List.of(local + "@courier", queue + "@orders"), listed);
        if (POSTGRES) {
            assertEquals(
                    1, queueRows(Postgres.inventory("courier_orders")), "the row is in the application's database");
            assertEquals(0, queueRows(Postgres.courier()), "and not in Courier's");
        }

        // REST on the application's database: send, receive, acknowledge once
        assertEquals(
                201,
                http.post("api/queues/" + queue + "/messages", "{\"payload\": {\"n\": 1}}")
                        .status());
        JsonObject got = receive(queue);
        String ack = "api/queues/" + queue + "/messages/" + got.getString("id") + "?leaseToken="
                + got.getString("leaseToken");
        assertEquals(204, http.delete(ack).status());
        assertEquals(410, http.delete(ack).status(), "a retried ack fails");

        // A lease that runs out on its last attempt: the sweeper of that database buries it
        assertEquals(
                201,
                http.post("api/queues/" + queue + "/messages", "{\"payload\": {\"n\": 2}}")
                        .status());
        assertEquals(
                200,
                http.post("api/queues/" + queue + "/receive", "{\"max\": 1, \"leaseSeconds\": 0.2}")
                        .status());
        Eventually.until(
                "the application database's sweeper moves it to dead",
                Duration.ofSeconds(30),
                () -> http.get("api/queues/" + queue).json().getInt("dead") == 1);
        assertEquals(
                1,
                http.get("api/queues/" + queue + "/dead")
                        .json()
                        .getJsonArray("messages")
                        .size());
        Metrics metrics = new Metrics();
        Eventually.until(
                "/metrics names the database",
                Duration.ofSeconds(30),
                () -> metrics.value("courier_queue_messages", "queue", queue, "database", "orders", "state", "dead")
                        == 1.0);
    }

    @Test
    void the_application_sends_in_its_own_transaction_there_and_courier_delivers() throws Exception {
        Assumptions.assumeTrue(POSTGRES, "the SQL API is PostgreSQL's");
        assertEquals(
                201,
                http.put("api/queues/" + queue, "{\"database\": \"orders\"}").status());
        try (Connection orders = Postgres.inventory("courier_orders")) {
            try (Statement ddl = orders.createStatement()) {
                ddl.execute("CREATE TABLE IF NOT EXISTS shop_order (id TEXT PRIMARY KEY)");
            }
            orders.setAutoCommit(false);
            insertOrder(orders, queue + "-rolled-back");
            send(orders, queue, "{\"order\": \"rolled back\"}");
            orders.rollback();
            insertOrder(orders, queue + "-1");
            send(orders, queue, "{\"order\": \"committed\"}");
            orders.commit();
        }
        JsonObject got = receive(queue);
        assertEquals("committed", got.getJsonObject("payload").getString("order"), "only the committed one");
        assertEquals(
                200,
                http.post("api/queues/" + queue + "/receive", "{\"max\": 10}").status());
        assertEquals(1, http.get("api/queues/" + queue).json().getInt("depth"));
    }

    @Test
    void names_are_unique_across_the_databases_and_a_database_must_be_configured() {
        assertEquals(
                201,
                http.put("api/queues/" + queue, "{\"database\": \"orders\"}").status());
        Http.Response elsewhere = http.put("api/queues/" + queue, "{\"database\": \"courier\"}");
        assertEquals(409, elsewhere.status(), elsewhere::toString);
        assertTrue(elsewhere.json().getString("detail").contains("orders"), elsewhere::toString);
        assertEquals(
                200, http.put("api/queues/" + queue, "{\"maxAttempts\": 3}").status(), "where it is");
        assertEquals("orders", http.get("api/queues/" + queue).json().getString("database"));

        Http.Response unknown = http.put("api/queues/" + local, "{\"database\": \"billing\"}");
        assertEquals(400, unknown.status(), unknown::toString);
        assertEquals(404, http.get("api/queues/" + local).status(), "nothing made");

        assertEquals(204, http.delete("api/queues/" + queue).status());
        assertEquals(404, http.get("api/queues/" + queue).status());
        assertEquals(
                201,
                http.put("api/queues/" + queue, "{\"database\": \"courier\"}").status(),
                "dropped, the name is free in any database");
        assertEquals("courier", http.get("api/queues/" + queue).json().getString("database"));
    }

    private JsonObject receive(String name) {
        return Eventually.await("a message on " + name, Duration.ofSeconds(10), () -> {
            List<JsonObject> messages = http.post("api/queues/" + name + "/receive", "{\"max\": 1}")
                    .json()
                    .getJsonArray("messages")
                    .getValuesAs(JsonObject.class);
            return messages.stream().findFirst();
        });
    }

    @Test
    void an_application_database_that_cannot_be_read_hides_its_queues_only_and_is_not_taken_for_their_absence()
            throws Exception {
        Assumptions.assumeTrue(POSTGRES, "stops one PostgreSQL database under a running Courier");
        assertEquals(
                201,
                http.put("api/queues/" + queue, "{\"database\": \"orders\"}").status());
        assertEquals(201, http.put("api/queues/" + local, "{}").status());
        refuseOrdersConnections(true);
        try {
            Thread.sleep(1500); // past settings-ttl (1 s): the queues' homes are looked up again
            Http.Response list = http.get("api/queues");
            assertEquals(200, list.status(), list::toString);
            List<String> names = list.json().getJsonArray("queues").getValuesAs(JsonObject.class).stream()
                    .map(q -> q.getString("name"))
                    .toList();
            assertTrue(names.contains(local), "Courier's own queues are still listed: " + names);
            assertTrue(!names.contains(queue), "the unreadable database's queues are not: " + names);
            assertEquals(200, http.get("api/queues/" + local).status(), "Courier's own queue answers");

            Http.Response unknown = http.get("api/queues/" + queue);
            assertTrue(unknown.status() >= 500, "not a 404 while its database cannot be read: " + unknown);
            assertEquals("application/problem+json", unknown.contentType(), unknown::toString);
            Http.Response send = http.post("api/queues/" + queue + "/messages", "{\"payload\": {\"n\": 1}}");
            assertTrue(send.status() >= 500, "a send fails rather than answering no such queue: " + send);
        } finally {
            refuseOrdersConnections(false);
        }
        Eventually.until(
                "the application database's queue answers again",
                Duration.ofSeconds(30),
                () -> http.get("api/queues/" + queue).status() == 200);
    }

    /**
     * The application's database "stopped" without stopping its server: new connections refused, every open one of
     * Courier's cut ({@code ALTER DATABASE … ALLOW_CONNECTIONS}, as the database's owner). {@code false} lets them in.
     */
    private static void refuseOrdersConnections(boolean refuse) throws SQLException {
        try (Connection server = Postgres.inventory("postgres");
                Statement sql = server.createStatement()) {
            sql.execute("ALTER DATABASE courier_orders ALLOW_CONNECTIONS " + !refuse);
            if (refuse) {
                sql.executeQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                                + "'courier_orders' AND usename = current_user AND backend_type = 'client backend'")
                        .close();
            }
        }
    }

    private int queueRows(Connection connection) throws SQLException {
        try (connection;
                PreparedStatement select =
                        connection.prepareStatement("SELECT COUNT(*) FROM courier_queue WHERE name = ?")) {
            select.setString(1, queue);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    private static void insertOrder(Connection orders, String id) throws SQLException {
        try (PreparedStatement insert = orders.prepareStatement("INSERT INTO shop_order (id) VALUES (?)")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    private static void send(Connection orders, String queue, String json) throws SQLException {
        try (PreparedStatement send = orders.prepareStatement("SELECT courier.send(?, ?::jsonb)")) {
            send.setString(1, queue);
            send.setString(2, json);
            send.executeQuery().close();
        }
    }
}
