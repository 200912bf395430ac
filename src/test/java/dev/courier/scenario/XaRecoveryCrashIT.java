package dev.courier.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import dev.courier.testing.Postgres;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * XA done properly: the server is killed with SIGKILL while a two-phase commit of an XA order is in doubt — the
 * databases hold a prepared transaction (PostgreSQL {@code pg_prepared_xacts}) that the transaction manager had
 * not yet committed. After a restart Liberty's recovery resolves it from its transaction log: no prepared
 * transaction is left, and the orders database, the inventory database and the broker agree, order by order.
 * PostgreSQL only (the check reads its prepared transactions).
 */
class XaRecoveryCrashIT {

    private static final LibertyProcess LIBERTY = new LibertyProcess();
    private static final String SUBSCRIPTION = "xa-recovery-test";
    /** The address the orders service sends its OrderPlaced events to in its XA transaction. */
    private static final String ORDER_PLACED = "scenario.order-placed";

    private static final Path MESSAGES = LIBERTY.messagesLog();
    /** {@code dev.courier.pgxa.SessionLost.RETRIED}: the class lives in the driver's library, not on this path. */
    private static final String SESSION_LOST_RETRIED = "XA session lost in the second phase";
    /**
     * Only the sessions Courier opened: a non-superuser may not end a superuser's (an operator's psql, or an
     * autovacuum worker on a busy database), and trying fails the whole statement.
     */
    private static final String OWN_SESSIONS = "usename = current_user AND backend_type = 'client backend'";

    private final Http http = Http.server();

    @BeforeAll
    static void startServer() throws Exception {
        Assumptions.assumeTrue(
                "postgres".equals(System.getProperty("courier.db")), "reads PostgreSQL's prepared transactions");
        LIBERTY.deploy();
        LIBERTY.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if ("postgres".equals(System.getProperty("courier.db"))) {
            LIBERTY.stop();
            LIBERTY.undeploy();
        }
    }

    @Test
    void should_resolve_transactions_in_doubt_after_a_crash_between_prepare_and_commit() throws Exception {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(
                        "tcp://127.0.0.1:" + System.getProperty("it.broker.port", "61617"));
                JMSContext events =
                        factory.createContext(Broker.USER, Broker.PASSWORD, JMSContext.CLIENT_ACKNOWLEDGE)) {
            events.setClientID("xa-recovery-" + System.nanoTime());
            // A durable subscription on the OrderPlaced address keeps every event the XA orders publish.
            events.createDurableConsumer(events.createTopic(ORDER_PLACED), SUBSCRIPTION)
                    .close();
            JsonObject before = http.get("api/scenario/consistency")
                    .json()
                    .getJsonObject("modes")
                    .getJsonObject("xa");

            int inDoubt = 0;
            for (int attempt = 1; attempt <= 5 && inDoubt == 0; attempt++) {
                inDoubt = crashWhileInDoubt();
                LIBERTY.start(); // recovery runs at start-up
            }
            assertTrue(inDoubt > 0, "the kill landed while transactions were prepared and not committed");

            Eventually.until(
                    "recovery resolved every prepared transaction",
                    Duration.ofSeconds(120),
                    () -> preparedTransactions() == 0);
            JsonObject after = http.get("api/scenario/consistency")
                    .json()
                    .getJsonObject("modes")
                    .getJsonObject("xa");
            long orders = after.getJsonNumber("orders").longValue()
                    - before.getJsonNumber("orders").longValue();
            assertTrue(orders > 0);
            assertEquals(
                    orders,
                    after.getJsonNumber("reserved").longValue()
                            - before.getJsonNumber("reserved").longValue(),
                    "every committed order has its reservation");
            assertEquals(
                    before.getJsonNumber("missing").longValue(),
                    after.getJsonNumber("missing").longValue());
            assertEquals(
                    before.getJsonNumber("orphaned").longValue(),
                    after.getJsonNumber("orphaned").longValue(),
                    "no reservation without its order");
            assertEquals(
                    before.getJsonNumber("duplicated").longValue(),
                    after.getJsonNumber("duplicated").longValue());
            assertEquals(
                    orders,
                    drain(events, orders),
                    "one OrderPlaced event per committed order, none for a rolled-back one");
            events.unsubscribe(SUBSCRIPTION);
        }
    }

    @Test
    void should_finish_transactions_in_doubt_when_the_inventory_database_ends_its_sessions() throws Exception {
        JsonObject before = http.get("api/scenario/consistency")
                .json()
                .getJsonObject("modes")
                .getJsonObject("xa");
        long logStart = Files.size(MESSAGES);
        boolean landed = false;
        for (int attempt = 1; attempt <= 10 && !landed; attempt++) {
            cutInventorySessions();
            // Either the driver's own words (without the correction) or the correction's warning (with it).
            String log = new String(Files.readAllBytes(MESSAGES), StandardCharsets.UTF_8).substring((int) logStart);
            landed = log.contains("Error committing prepared transaction") || log.contains(SESSION_LOST_RETRIED);
        }
        assertTrue(landed, "a cut landed on a session carrying a second-phase commit");

        // pgjdbc reports such a commit as XAER_RMERR ("give up"): without the correction the branch stays prepared,
        // holding the stock row's lock, until an operator ends it.
        Eventually.until(
                "the transaction manager finished every prepared transaction",
                Duration.ofSeconds(150),
                () -> preparedTransactions() == 0);
        assertEquals(
                201, http.post("lab-orders/api/orders?mode=xa", "").status(), "the stock row is not locked any more");
        JsonObject after = http.get("api/scenario/consistency")
                .json()
                .getJsonObject("modes")
                .getJsonObject("xa");
        long orders = after.getJsonNumber("orders").longValue()
                - before.getJsonNumber("orders").longValue();
        assertEquals(
                orders,
                after.getJsonNumber("reserved").longValue()
                        - before.getJsonNumber("reserved").longValue(),
                "every committed order has its reservation");
        assertEquals(
                before.getJsonNumber("orphaned").longValue(),
                after.getJsonNumber("orphaned").longValue());
        assertEquals(
                before.getJsonNumber("duplicated").longValue(),
                after.getJsonNumber("duplicated").longValue());
    }

    /**
     * Places XA orders from four threads and, for three seconds, ends every session of the inventory database
     * twenty times a second (as a restart or failover does), hoping to catch one carrying a second-phase commit.
     */
    private void cutInventorySessions() throws Exception {
        AtomicBoolean placing = new AtomicBoolean(true);
        ExecutorService threads = placeXaOrders(placing);
        try (Connection inventory = Postgres.inventory();
                Statement query = inventory.createStatement()) {
            Thread.sleep(1000);
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < end) {
                query.executeQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                + "WHERE datname = 'courier_inventory' AND pid <> pg_backend_pid() AND " + OWN_SESSIONS)
                        .close();
                Thread.sleep(50);
            }
        } finally {
            placing.set(false);
            threads.shutdown();
            threads.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Four threads placing XA orders until {@code placing} turns false; a failed request (a cut, a dead server) is skipped. */
    private ExecutorService placeXaOrders(AtomicBoolean placing) {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4; i++) {
            threads.execute(() -> {
                while (placing.get()) {
                    try {
                        http.post("lab-orders/api/orders?mode=xa", "");
                    } catch (RuntimeException e) {
                        // caught in the fault: go on until told to stop
                    }
                }
            });
        }
        return threads;
    }

    /** Places XA orders from four threads and kills the server as soon as a prepared transaction is seen. */
    private int crashWhileInDoubt() throws Exception {
        AtomicBoolean placing = new AtomicBoolean(true);
        ExecutorService threads = placeXaOrders(placing);
        ProcessHandle server = LIBERTY.process();
        try (Connection courier = Postgres.courier();
                Connection inventory = Postgres.inventory();
                Statement orders = courier.createStatement();
                Statement stock = inventory.createStatement()) {
            Thread.sleep(1000); // the server warms up: orders flow
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                if (prepared(orders) + prepared(stock) > 0) {
                    server.destroyForcibly(); // SIGKILL at once: the commit phase must not finish
                    break;
                }
            }
            server.onExit().join();
        } finally {
            placing.set(false);
            threads.shutdown();
        }
        return preparedTransactions();
    }

    /**
     * The distinct orders whose events the subscription holds: received until {@code expected} of them came or a
     * minute passed, then until two seconds pass without one (one too many would be a rolled-back order's). The
     * databases' prepared branches are resolved at start-up, but the broker's can be committed only at the
     * transaction manager's next retry (the server's {@code heuristicRetryInterval}, 10 s): recovery starts before
     * the resource adapter is installed. In one CI run a drain that stopped at the first quiet second, within
     * seconds of the restart, found 70 events for 71 orders, while the transaction log was empty at shutdown.
     */
    private static long drain(JMSContext events, long expected) throws Exception {
        Set<String> orders = new HashSet<>();
        List<Message> all = new ArrayList<>();
        try (JMSConsumer consumer = events.createDurableConsumer(events.createTopic(ORDER_PLACED), SUBSCRIPTION)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (orders.size() < expected && System.nanoTime() < deadline) {
                receive(consumer.receive(1000), all, orders);
            }
            for (Message message = consumer.receive(2000); message != null; message = consumer.receive(2000)) {
                receive(message, all, orders);
            }
        }
        assertEquals(all.size(), orders.size(), "no event twice");
        return orders.size();
    }

    private static void receive(Message message, List<Message> all, Set<String> orders) throws Exception {
        if (message != null) {
            all.add(message);
            orders.add(message.getStringProperty("orderId"));
            message.acknowledge();
        }
    }

    private static int preparedTransactions() {
        return Postgres.preparedTransactions();
    }

    private static int prepared(Statement query) throws SQLException {
        try (ResultSet rows = query.executeQuery("SELECT COUNT(*) FROM pg_prepared_xacts")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
