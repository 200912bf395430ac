package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.queue.jdbc.CourierQueue;
import dev.courier.queue.jdbc.Send;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Postgres;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The SQL API (the functions of the schema {@code courier}, db/migration/postgresql/V14) from plain JDBC and
 * {@code psql}, in the caller's own transaction, beside a business table of the caller's: what commits, what
 * rolls back, the errors for bad input and lost leases, and one scenario through SQL, the library and REST
 * compared row by row.
 */
// PostgreSQL only, decided before Arquillian deploys anything (an assumption would come after the deployment).
@EnabledIfSystemProperty(named = "courier.db", matches = "postgres")
@ExtendWith(ArquillianExtension.class)
class QueueSqlApiIT {

    private final Http http = Http.server();
    private String queue;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @BeforeEach
    void createQueue() throws SQLException {
        queue = define("sql");
        try (Connection connection = Postgres.courier();
                Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS sqlapi_order (id TEXT PRIMARY KEY, note TEXT)");
        }
    }

    @AfterEach
    void dropQueue() {
        if (queue != null) {
            http.delete("api/queues/" + queue);
        }
    }

    private String define(String prefix) {
        String name = prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Http.Response created = http.put(
                "api/queues/" + name,
                "{\"leaseSeconds\": 30, \"maxAttempts\": 2, \"backoff\": {\"initialSeconds\": 1, \"multiplier\": 2, \"maxSeconds\": 4}}");
        assertEquals(201, created.status(), created::toString);
        return name;
    }

    @Test
    void a_send_commits_and_rolls_back_with_the_callers_own_writes() throws SQLException {
        String kept = UUID.randomUUID().toString();
        String undone = UUID.randomUUID().toString();
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(false);
            insertOrder(app, kept);
            String sent = send(app, queue, "{\"order\": \"" + kept + "\"}");
            app.commit();
            insertOrder(app, undone);
            send(app, queue, "{\"order\": \"" + undone + "\"}");
            app.rollback();

            assertTrue(orderExists(app, kept));
            assertFalse(orderExists(app, undone));
            List<Received> got = receive(app, queue, 10, null);
            app.commit();
            assertEquals(1, got.size(), "only the committed send is a message");
            assertEquals(sent, got.get(0).id());
            assertEquals("{\"order\": \"" + kept + "\"}", got.get(0).payload());
        }
    }

    @Test
    void an_ack_rolled_back_with_the_callers_writes_brings_the_message_back_after_its_lease() throws Exception {
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            String id = send(app, queue, "{\"n\": 1}");
            app.setAutoCommit(false);
            Received first = receive(app, queue, 1, "1 second").get(0);
            app.commit();
            insertOrder(app, id);
            ack(app, first.token());
            app.rollback(); // the business write failed: the ack with it

            assertFalse(orderExists(app, id));
            app.commit();
            assertTrue(receive(app, queue, 1, null).isEmpty(), "leased until its lease ends");
            app.commit();
            Thread.sleep(1000 + 2000); // the lease, then the backoff after attempt 1 (at most 1 s)
            Received again = receive(app, queue, 1, null).get(0);
            assertEquals(id, again.id());
            assertEquals(2, again.attempt());
            assertNotEquals(first.token(), again.token());
            insertOrder(app, id);
            ack(app, again.token());
            app.commit();
            assertTrue(orderExists(app, id));
            assertEquals(0, rows(app, queue), "acknowledged: the row is gone");
        }
    }

    @Test
    void a_retried_or_stale_ack_raises_and_takes_the_callers_transaction_with_it() throws Exception {
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            send(app, queue, "{\"n\": 1}");
            Received got = receive(app, queue, 1, null).get(0);
            ack(app, got.token());

            app.setAutoCommit(false);
            String order = UUID.randomUUID().toString();
            insertOrder(app, order);
            SQLException gone = assertThrows(SQLException.class, () -> ack(app, got.token()));
            assertEquals("CQ410", gone.getSQLState(), gone::getMessage);
            app.commit(); // the transaction is aborted: PostgreSQL answers its COMMIT with a ROLLBACK
            assertFalse(orderExists(app, order), "nothing of the transaction was written");

            app.setAutoCommit(true);
            send(app, queue, "{\"n\": 2}");
            Received expired = receive(app, queue, 1, "1 second").get(0);
            Thread.sleep(1000 + 2000);
            Received current = receive(app, queue, 1, null).get(0);
            SQLException stale = assertThrows(SQLException.class, () -> ack(app, expired.token()));
            assertEquals("CQ409", stale.getSQLState(), stale::getMessage);
            SQLException staleRenew = assertThrows(SQLException.class, () -> renew(app, expired.token(), "10 s"));
            assertEquals("CQ409", staleRenew.getSQLState());
            ack(app, current.token());
        }
    }

    @Test
    void ack_all_acknowledges_every_token_or_none() throws SQLException {
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            sendBatch(app, queue, 3);
            List<Received> got = receive(app, queue, 3, null);
            assertEquals(3, got.size());
            List<String> tokens =
                    new ArrayList<>(got.stream().map(Received::token).toList());
            tokens.set(2, got.get(2).id() + ".ffffffff"); // not its lease
            SQLException stale = assertThrows(SQLException.class, () -> ackAll(app, tokens));
            assertEquals("CQ409", stale.getSQLState(), stale::getMessage);
            assertEquals(3, rows(app, queue), "none acknowledged");

            SQLException twice = assertThrows(
                    SQLException.class,
                    () -> ackAll(app, List.of(got.get(0).token(), got.get(0).token())));
            assertEquals("CQ400", twice.getSQLState());
            assertEquals(3, ackAll(app, got.stream().map(Received::token).toList()));
            assertEquals(0, rows(app, queue));
        }
    }

    @Test
    void renew_extends_the_lease_and_release_records_the_attempt_then_buries_the_last() throws Exception {
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            String id = send(app, queue, "{\"n\": 1}");
            Received first = receive(app, queue, 1, "1 second").get(0);
            renew(app, first.token(), "1 minute");
            Thread.sleep(1500);
            assertTrue(receive(app, queue, 1, null).isEmpty(), "the renewed lease still holds");

            release(app, first.token(), "0 seconds", "downstream busy");
            Received second = receive(app, queue, 1, null).get(0);
            assertEquals(2, second.attempt());
            release(app, second.token(), null, null); // the queue's last attempt: dead
            try (PreparedStatement select = app.prepareStatement(
                    "SELECT state, last_error, history, dead_at IS NOT NULL FROM courier_message WHERE id = ?")) {
                select.setString(1, id);
                try (ResultSet row = select.executeQuery()) {
                    assertTrue(row.next());
                    assertEquals("DEAD", row.getString(1));
                    assertEquals("released", row.getString(2));
                    assertTrue(row.getBoolean(4));
                    List<FailedAttempt> history = History.parse(row.getString(3));
                    assertEquals(2, history.size(), row.getString(3));
                    assertEquals("downstream busy", history.get(0).reason());
                    assertEquals(History.RELEASED, history.get(1).kind());
                }
            }
            // REST reads what SQL wrote: the dead letter with its history
            JsonObject dead =
                    http.get("api/queues/" + queue + "/messages/" + id).json();
            assertEquals("DEAD", dead.getString("state"), dead::toString);
        }
    }

    @Test
    void bad_input_gets_a_precise_error_and_writes_nothing() throws SQLException {
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            assertState("CQ404", () -> send(app, "no_such_queue", "{}"));
            assertState("22P02", () -> send(app, queue, "not json"));
            assertState("CQ400", () -> ack(app, "not-a-token"));
            assertState("CQ400", () -> renew(app, "x".repeat(36) + "." + "y".repeat(60), "1 s"));
            assertState("CQ410", () -> ack(app, UUID.randomUUID() + ".00"));
            assertState("CQ400", () -> receive(app, queue, 0, null));
            assertState("CQ400", () -> receive(app, queue, 1, "13 hours"));
            assertState("CQ404", () -> receive(app, "no_such_queue", 1, null));
            try (PreparedStatement delayed =
                    app.prepareStatement("SELECT courier.send(?, '{}'::jsonb, delay => '-1 second')")) {
                delayed.setString(1, queue);
                assertState("CQ400", delayed::executeQuery);
            }
            String large = "{\"big\": \"" + "x".repeat(262144) + "\"}";
            assertState("CQ413", () -> send(app, queue, large));
            try (PreparedStatement batch =
                    app.prepareStatement("SELECT * FROM courier.send_batch(?, ARRAY['{\"ok\": 1}', ?]::jsonb[])")) {
                batch.setString(1, queue);
                batch.setString(2, large);
                assertState("CQ413", batch::executeQuery);
            }
            try (PreparedStatement headers =
                    app.prepareStatement("SELECT courier.send(?, '{}'::jsonb, headers => '{\"n\": 1}'::jsonb)")) {
                headers.setString(1, queue);
                assertState("CQ400", headers::executeQuery);
            }
            // What the server refuses (SendOptions), SQL refuses too: a key of blanks, a blank header name.
            try (PreparedStatement blankKey =
                    app.prepareStatement("SELECT courier.send(?, '{}'::jsonb, key => '   ')")) {
                blankKey.setString(1, queue);
                assertState("CQ400", blankKey::executeQuery);
            }
            try (PreparedStatement blankHeader =
                    app.prepareStatement("SELECT courier.send(?, '{}'::jsonb, headers => '{\" \": \"v\"}'::jsonb)")) {
                blankHeader.setString(1, queue);
                assertState("CQ400", blankHeader::executeQuery);
            }
            assertEquals(0, rows(app, queue), "a refused call, a batch among them, writes nothing");
        }
    }

    /**
     * A queue defined through SQL is Courier's like any other (REST reads its settings); its dead messages are
     * listed with their history, replayed (once: a replayed id is no longer dead) and purged; dropping it takes its
     * messages; every bad setting or argument gets CQ400, an unknown queue CQ404, the queue limit CQ4L9.
     */
    @Test
    void a_queue_defined_through_sql_has_its_dead_letters_listed_replayed_purged_and_is_dropped() throws Exception {
        String name = "sqldef" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            assertEquals("t", call(app, "SELECT courier.define_queue(?, max_attempts => 1)", name));
            assertEquals(
                    "f", call(app, "SELECT courier.define_queue(?, lease => '20 seconds', max_attempts => 1)", name));
            JsonObject defined = Eventually.await("the new lease through REST", Duration.ofSeconds(10), () -> {
                JsonObject q = http.get("api/queues/" + name).json();
                return q.getInt("leaseSeconds") == 20 ? Optional.of(q) : Optional.empty();
            });
            assertEquals(1, defined.getInt("maxAttempts"), defined::toString);

            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(send(app, name, "{\"n\": " + i + "}"));
            }
            for (Received message : receive(app, name, 3, null)) {
                release(app, message.token(), null, "poison " + message.id());
            }
            Collections.sort(ids);
            assertEquals(
                    ids.subList(0, 2),
                    column(app, "SELECT id FROM courier.dead_letters(?, max => 2)", name),
                    "the first page, in id order");
            assertEquals(
                    ids.subList(2, 3),
                    column(app, "SELECT id FROM courier.dead_letters(?, ?::uuid, 2)", name, ids.get(1)));
            assertEquals(
                    "poison " + ids.get(0) + "|RELEASED|1",
                    call(
                            app,
                            "SELECT last_error || '|' || (history->0->>'kind') || '|' || jsonb_array_length(history) "
                                    + "FROM courier.dead_letters(?) WHERE id = ?::uuid",
                            name,
                            ids.get(0)));

            String[] first = {ids.get(0)};
            assertEquals("1", call(app, "SELECT courier.replay(?, ?::uuid[])", name, first));
            assertEquals("0", call(app, "SELECT courier.replay(?, ?::uuid[])", name, first), "no longer dead");
            Received again = receive(app, name, 1, null).get(0);
            assertEquals(ids.get(0), again.id());
            assertEquals(1, again.attempt(), "attempts counted afresh");
            assertEquals("1", call(app, "SELECT courier.purge(?, ?::uuid[])", name, new String[] {ids.get(1)}));
            assertEquals("1", call(app, "SELECT courier.purge(?)", name), "every dead message left");
            assertEquals(1, rows(app, name), "the replayed one is live");

            assertState("CQ400", () -> call(app, "SELECT courier.define_queue('1bad')"));
            assertState("CQ400", () -> call(app, "SELECT courier.define_queue(?, lease => '13 hours')", name));
            assertState("CQ400", () -> call(app, "SELECT courier.define_queue(?, max_attempts => 0)", name));
            assertState("CQ400", () -> call(app, "SELECT courier.define_queue(?, backoff_multiplier => 0.5)", name));
            assertState(
                    "CQ400",
                    () -> call(
                            app,
                            "SELECT courier.define_queue(?, backoff_initial => '2 min', backoff_max => '1 min')",
                            name));
            assertState("CQ400", () -> call(app, "SELECT count(*) FROM courier.dead_letters(?, max => 0)", name));
            assertState("CQ400", () -> call(app, "SELECT courier.replay(?, rate => 0)", name));
            assertState("22P02", () -> call(app, "SELECT courier.purge(?, ARRAY['not-an-id']::uuid[])", name));
            assertState("CQ404", () -> call(app, "SELECT count(*) FROM courier.dead_letters('no_such_queue')"));
            assertState("CQ404", () -> call(app, "SELECT courier.replay('no_such_queue')"));
            assertState("CQ404", () -> call(app, "SELECT courier.drop_queue('no_such_queue')"));
            assertEquals(
                    "20000|1",
                    call(app, "SELECT lease_ms || '|' || max_attempts FROM courier_queue WHERE name = ?", name),
                    "a refused definition changes nothing");

            String limit = call(app, "SELECT max_queues::text FROM courier_queue_limits");
            assertEquals("120", limit, "the server's courier.queue.max-queues (the pom's), written at its start");
            try {
                call(
                        app,
                        "UPDATE courier_queue_limits SET max_queues = (SELECT count(*) FROM courier_queue) "
                                + "RETURNING 1");
                assertState("CQ4L9", () -> call(app, "SELECT courier.define_queue('sqldef_one_too_many')"));
                assertEquals("f", call(app, "SELECT courier.define_queue(?, max_attempts => 1)", name), "an update");
            } finally {
                call(app, "UPDATE courier_queue_limits SET max_queues = ?::int RETURNING 1", limit);
            }

            call(app, "SELECT courier.drop_queue(?)::text", name);
            assertEquals(0, rows(app, name), "dropped with its message");
            assertEquals(404, http.get("api/queues/" + name).status());
        }
    }

    /** The one value {@code sql} answers, with {@code args} bound in order. */
    private static String call(Connection app, String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = app.prepareStatement(sql)) {
            bind(app, statement, args);
            return single(statement);
        }
    }

    private static List<String> column(Connection app, String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = app.prepareStatement(sql)) {
            bind(app, statement, args);
            List<String> values = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
            return values;
        }
    }

    private static void bind(Connection app, PreparedStatement statement, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            statement.setObject(i + 1, args[i] instanceof String[] array ? app.createArrayOf("text", array) : args[i]);
        }
    }

    /**
     * Who may call the functions is the database's business: a role granted EXECUTE (and USAGE on the schema) sends
     * and receives without any privilege on Courier's tables, which it cannot touch directly, not even through the
     * core functions the API calls; a role without the grant cannot call them. Roles are made by the superuser (runuser postgres), as an operator would.
     */
    @Test
    void a_role_granted_execute_uses_the_queue_without_touching_courier_tables() throws Exception {
        String role = "app_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String other = role + "_none";
        String database = System.getProperty("courier.db.name", "courier");
        Postgres.superuser(
                "CREATE ROLE " + role + " LOGIN PASSWORD 'app'; CREATE ROLE " + other + " LOGIN PASSWORD 'app'; "
                        + "GRANT USAGE ON SCHEMA courier TO " + role + "; "
                        + "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA courier TO " + role + ";");
        try {
            try (Connection app = Postgres.as(database, role, "app")) {
                app.setAutoCommit(true);
                String id = send(app, queue, "{\"granted\": true}");
                Received got = receive(app, queue, 1, null).get(0);
                assertEquals(id, got.id());
                ack(app, got.token());
                assertState("42501", () -> app.createStatement().executeQuery("SELECT * FROM courier_message"));
                // The core functions behind the API run with the caller's rights: the grant does not reach past
                // the API's checks (a claim at a time of the caller's choosing would take others' leases).
                assertState(
                        "42501",
                        () -> app.createStatement()
                                .executeQuery(
                                        "SELECT * FROM courier.core_claim('" + queue + "', 1, 1000, "
                                                + "now() + interval '1 day', now() + interval '2 days', 10, 1000, 2, 1000, 'n')"));
            }
            try (Connection stranger = Postgres.as(database, other, "app")) {
                assertState("42501", () -> send(stranger, queue, "{}"));
            }
        } finally {
            Postgres.superuser("DROP OWNED BY " + role + "; DROP ROLE " + role + "; DROP ROLE " + other + ";");
        }
    }

    @Test
    void a_key_sent_twice_within_the_window_answers_the_original() throws SQLException {
        String first;
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            try (PreparedStatement keyed = app.prepareStatement(
                    "SELECT courier.send(?, ?::jsonb, key => 'order-7', headers => '{\"trace\": \"t1\"}')")) {
                keyed.setString(1, queue);
                keyed.setString(2, "{\"n\": 1}");
                first = single(keyed);
                keyed.setString(2, "{\"n\": 2}");
                assertEquals(first, single(keyed));
            }
            assertEquals(1, rows(app, queue));
            // REST sees the same key as taken
            Http.Response again =
                    http.post("api/queues/" + queue + "/messages", "{\"payload\": 3, \"key\": \"order-7\"}");
            assertEquals(200, again.status(), again::toString);
            assertEquals(first, again.json().getString("id"));
            Received got = receive(app, queue, 1, null).get(0);
            assertEquals("{\"trace\": \"t1\"}", got.headers());
        }
    }

    @Test
    void psql_sends_in_its_transaction_and_rest_receives_it() throws Exception {
        String script = "BEGIN;\n"
                + "INSERT INTO sqlapi_order VALUES ('psql-" + queue + "', 'from psql');\n"
                + "SELECT courier.send('" + queue + "', '{\"from\": \"psql\"}');\n"
                + "COMMIT;\n"
                + "BEGIN;\n"
                + "SELECT courier.send('" + queue + "', '{\"from\": \"psql, rolled back\"}');\n"
                + "ROLLBACK;\n";
        String[] host = System.getProperty("courier.db.hosts", "localhost:5432")
                .split(",")[0]
                .split(":");
        ProcessBuilder command = new ProcessBuilder(
                        "psql",
                        "-h",
                        host[0],
                        "-p",
                        host[1],
                        "-U",
                        System.getProperty("courier.db.user", "courier"),
                        "-d",
                        System.getProperty("courier.db.name", "courier"),
                        "-X",
                        "-q",
                        "-v",
                        "ON_ERROR_STOP=1")
                .redirectErrorStream(true);
        command.environment().put("PGPASSWORD", dev.courier.testing.Postgres.password());
        Process psql = command.start();
        psql.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
        psql.getOutputStream().close();
        String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(psql.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, psql.exitValue(), output);

        JsonObject received =
                http.post("api/queues/" + queue + "/receive", "{\"max\": 10}").json();
        assertEquals(1, received.getJsonArray("messages").size(), received::toString);
        assertEquals(
                "psql",
                received.getJsonArray("messages")
                        .getJsonObject(0)
                        .getJsonObject("payload")
                        .getString("from"));
    }

    @Test
    void a_receiver_waiting_on_courier_wakes_for_a_send_made_through_sql() throws Exception {
        CompletableFuture<Http.Response> waiting = CompletableFuture.supplyAsync(
                () -> http.post("api/queues/" + queue + "/receive", "{\"max\": 1, \"waitSeconds\": 20}"));
        Thread.sleep(500); // the receiver is waiting
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            send(app, queue, "{\"woke\": true}");
        }
        JsonObject answer = waiting.get(15, TimeUnit.SECONDS).json();
        assertEquals(1, answer.getJsonArray("messages").size(), answer::toString);
    }

    /**
     * One scenario, once through SQL and once through REST, on two queues of the same settings: the rows each
     * leaves (state, attempt, last error, history's kinds, payload, headers) are the same.
     */
    @Test
    void one_scenario_through_sql_the_library_and_rest_leaves_the_same_rows() throws Exception {
        String rest = define("rest");
        String library = define("lib");
        try (Connection app = Postgres.courier()) {
            app.setAutoCommit(true);
            // SQL: three messages; ack one, release one (kept, retried), release one twice (dead)
            try (PreparedStatement sendSql =
                    app.prepareStatement("SELECT courier.send(?, ?::jsonb, key => ?, headers => '{\"h\": \"v\"}')")) {
                for (int n = 1; n <= 3; n++) {
                    sendSql.setString(1, queue);
                    sendSql.setString(2, "{\"n\": " + n + "}");
                    sendSql.setString(3, "k" + n);
                    single(sendSql);
                }
            }
            List<Received> sql = sortByN(receive(app, queue, 3, null));
            ack(app, sql.get(0).token());
            release(app, sql.get(1).token(), "0 seconds", "later");
            release(app, sql.get(2).token(), "0 seconds", "bad");
            Received last = receive(app, queue, 3, null).stream()
                    .filter(r -> r.payload().contains("3"))
                    .findFirst()
                    .orElseThrow();
            release(app, last.token(), null, "bad again");

            // REST: the same
            for (int n = 1; n <= 3; n++) {
                assertEquals(
                        201,
                        http.post(
                                        "api/queues/" + rest + "/messages",
                                        "{\"payload\": {\"n\": " + n + "}, \"key\": \"k" + n
                                                + "\", \"headers\": {\"h\": \"v\"}}")
                                .status());
            }
            List<JsonObject> got = new ArrayList<>(http.post("api/queues/" + rest + "/receive", "{\"max\": 3}")
                    .json()
                    .getJsonArray("messages")
                    .getValuesAs(JsonObject.class));
            got.sort((a, b) -> a.getJsonObject("payload").getInt("n")
                    - b.getJsonObject("payload").getInt("n"));
            assertEquals(204, http.delete(restMessage(rest, got.get(0))).status());
            assertEquals(204, releaseRest(rest, got.get(1), "{\"delaySeconds\": 0, \"reason\": \"later\"}"));
            assertEquals(204, releaseRest(rest, got.get(2), "{\"delaySeconds\": 0, \"reason\": \"bad\"}"));
            JsonObject again = http
                    .post("api/queues/" + rest + "/receive", "{\"max\": 3}")
                    .json()
                    .getJsonArray("messages")
                    .getValuesAs(JsonObject.class)
                    .stream()
                    .filter(m -> m.getJsonObject("payload").getInt("n") == 3)
                    .findFirst()
                    .orElseThrow();
            assertEquals(204, releaseRest(rest, again, "{\"reason\": \"bad again\"}"));

            // The library (CourierQueue on this connection): the same
            CourierQueue jdbc = CourierQueue.on(app);
            for (int n = 1; n <= 3; n++) {
                jdbc.send(
                        library, Send.of("{\"n\": " + n + "}").withKey("k" + n).withHeaders(Map.of("h", "v")));
            }
            List<dev.courier.queue.jdbc.Received> byLibrary = new ArrayList<>(jdbc.receive(library, 3));
            byLibrary.sort(Comparator.comparing(dev.courier.queue.jdbc.Received::payload));
            jdbc.ack(byLibrary.get(0).leaseToken());
            jdbc.release(byLibrary.get(1).leaseToken(), Duration.ZERO, "later");
            jdbc.release(byLibrary.get(2).leaseToken(), Duration.ZERO, "bad");
            dev.courier.queue.jdbc.Received third = jdbc.receive(library, 3).stream()
                    .filter(r -> r.payload().contains("3"))
                    .findFirst()
                    .orElseThrow();
            jdbc.release(third.leaseToken(), null, "bad again");

            // An expired lease, through each: message 4 leased for 1 s and left to expire, leased again (its second
            // and last attempt) and released: dead, its history the expiry and then the release.
            try (PreparedStatement sendSql = app.prepareStatement(
                    "SELECT courier.send(?, '{\"n\": 4}', key => 'k4', headers => '{\"h\": \"v\"}')")) {
                sendSql.setString(1, queue);
                single(sendSql);
            }
            assertEquals(
                    201,
                    http.post(
                                    "api/queues/" + rest + "/messages",
                                    "{\"payload\": {\"n\": 4}, \"key\": \"k4\", \"headers\": {\"h\": \"v\"}}")
                            .status());
            jdbc.send(library, Send.of("{\"n\": 4}").withKey("k4").withHeaders(Map.of("h", "v")));
            assertEquals(1, receive(app, queue, 1, "1 second").size());
            assertEquals(
                    1,
                    http.post("api/queues/" + rest + "/receive", "{\"max\": 1, \"leaseSeconds\": 1}")
                            .json()
                            .getJsonArray("messages")
                            .size());
            assertEquals(1, jdbc.receive(library, 1, Duration.ofSeconds(1)).size());
            Thread.sleep(1000 + 1500); // the lease, then the backoff after attempt 1 (at most 1 s)
            release(app, receive(app, queue, 1, null).get(0).token(), null, "bad after expiry");
            assertEquals(
                    204,
                    releaseRest(
                            rest,
                            http.post("api/queues/" + rest + "/receive", "{\"max\": 1}")
                                    .json()
                                    .getJsonArray("messages")
                                    .getJsonObject(0),
                            "{\"reason\": \"bad after expiry\"}"));
            jdbc.release(jdbc.receive(library, 1).get(0).leaseToken(), null, "bad after expiry");

            List<String> expected = comparable(app, queue);
            assertEquals(3, expected.size(), expected::toString);
            assertTrue(
                    expected.get(2).contains("1:EXPIRED:lease expired, 2:RELEASED:bad after expiry"),
                    expected::toString);
            assertEquals(expected, comparable(app, rest), "REST");
            assertEquals(expected, comparable(app, library), "the library");
        } finally {
            http.delete("api/queues/" + rest);
            http.delete("api/queues/" + library);
        }
    }

    private String restMessage(String name, JsonObject message) {
        return "api/queues/" + name + "/messages/" + message.getString("id") + "?leaseToken="
                + message.getString("leaseToken");
    }

    private int releaseRest(String name, JsonObject message, String body) {
        String json =
                body.substring(0, body.length() - 1) + ", \"leaseToken\": \"" + message.getString("leaseToken") + "\"}";
        return http.post("api/queues/" + name + "/messages/" + message.getString("id") + "/release", json)
                .status();
    }

    /** A queue's rows without what differs by nature (ids, times, tokens), in payload order. */
    private static List<String> comparable(Connection app, String name) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (PreparedStatement select = app.prepareStatement("SELECT state, attempt, last_error, history, "
                + "convert_from(payload, 'UTF8')::jsonb::text, (headers::jsonb - 'traceparent' - 'tracestate')::text, "
                + "idempotency_key, "
                + "lease_token IS NULL FROM courier_message WHERE queue = ? ORDER BY convert_from(payload, 'UTF8')")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    List<String> kinds = History.parse(row.getString(4)).stream()
                            .map(a -> a.attempt() + ":" + a.kind() + ":" + a.reason())
                            .toList();
                    rows.add(String.join(
                            "|",
                            row.getString(1),
                            row.getString(2),
                            row.getString(3),
                            kinds.toString(),
                            row.getString(5),
                            row.getString(6),
                            row.getString(7),
                            row.getString(8)));
                }
            }
        }
        return rows;
    }

    private static List<Received> sortByN(List<Received> received) {
        List<Received> sorted = new ArrayList<>(received);
        sorted.sort((a, b) -> a.payload().compareTo(b.payload()));
        return sorted;
    }

    // --- the SQL API, as an application calls it

    record Received(String id, String token, int attempt, String payload, String headers) {}

    static String send(Connection app, String queue, String json) throws SQLException {
        try (PreparedStatement send = app.prepareStatement("SELECT courier.send(?, ?::jsonb)")) {
            send.setString(1, queue);
            send.setString(2, json);
            return single(send);
        }
    }

    static void sendBatch(Connection app, String queue, int n) throws SQLException {
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            payloads.add("{\"n\": " + i + "}");
        }
        try (PreparedStatement send = app.prepareStatement("SELECT id FROM courier.send_batch(?, ?::jsonb[])")) {
            send.setString(1, queue);
            send.setArray(2, app.createArrayOf("text", payloads.toArray()));
            int rows = 0;
            try (ResultSet sent = send.executeQuery()) {
                while (sent.next()) {
                    rows++;
                }
            }
            assertEquals(n, rows);
        }
    }

    static List<Received> receive(Connection app, String queue, int max, String lease) throws SQLException {
        try (PreparedStatement receive = app.prepareStatement("SELECT id, lease_token, attempt, payload::text, "
                + "headers::text FROM courier.receive(?, ?, ?::interval)")) {
            receive.setString(1, queue);
            receive.setInt(2, max);
            receive.setString(3, lease);
            List<Received> received = new ArrayList<>();
            try (ResultSet rows = receive.executeQuery()) {
                while (rows.next()) {
                    received.add(new Received(
                            rows.getString(1),
                            rows.getString(2),
                            rows.getInt(3),
                            rows.getString(4),
                            rows.getString(5)));
                }
            }
            return received;
        }
    }

    static void ack(Connection app, String token) throws SQLException {
        try (PreparedStatement ack = app.prepareStatement("SELECT courier.ack(?)")) {
            ack.setString(1, token);
            ack.executeQuery().close();
        }
    }

    static int ackAll(Connection app, List<String> tokens) throws SQLException {
        try (PreparedStatement ack = app.prepareStatement("SELECT courier.ack_all(?)")) {
            ack.setArray(1, app.createArrayOf("text", tokens.toArray()));
            try (ResultSet row = ack.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    static void renew(Connection app, String token, String extension) throws SQLException {
        try (PreparedStatement renew = app.prepareStatement("SELECT courier.renew(?, ?::interval)")) {
            renew.setString(1, token);
            renew.setString(2, extension);
            renew.executeQuery().close();
        }
    }

    static void release(Connection app, String token, String delay, String reason) throws SQLException {
        try (PreparedStatement release = app.prepareStatement("SELECT courier.release(?, ?::interval, ?)")) {
            release.setString(1, token);
            release.setString(2, delay);
            release.setString(3, reason);
            release.executeQuery().close();
        }
    }

    private static String single(PreparedStatement query) throws SQLException {
        try (ResultSet row = query.executeQuery()) {
            assertTrue(row.next());
            return row.getString(1);
        }
    }

    private static void insertOrder(Connection app, String id) throws SQLException {
        try (PreparedStatement insert = app.prepareStatement("INSERT INTO sqlapi_order VALUES (?, 'business')")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    private static boolean orderExists(Connection app, String id) throws SQLException {
        try (PreparedStatement select = app.prepareStatement("SELECT 1 FROM sqlapi_order WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    private static int rows(Connection app, String queue) throws SQLException {
        try (PreparedStatement count = app.prepareStatement("SELECT COUNT(*) FROM courier_message WHERE queue = ?")) {
            count.setString(1, queue);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    interface SqlCall {
        void call() throws SQLException;
    }

    private static void assertState(String state, SqlCall call) {
        SQLException e = assertThrows(SQLException.class, call::call);
        assertEquals(state, e.getSQLState(), e::getMessage);
    }
}
