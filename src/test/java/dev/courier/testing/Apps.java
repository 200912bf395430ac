package dev.courier.testing;

import dev.courier.client.BarrierCheckBack;
import dev.courier.client.ClientTables;
import dev.courier.client.HttpCourierApi;
import dev.courier.client.ReliableConsumer;
import dev.courier.client.ReliableProducer;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The upstream (orders) and downstream applications of the reliable message tests, wired from the client
 * helpers as a real application would wire them. Both use Courier's database as "their own" database, in tables
 * of their own; the helpers reach Courier over HTTP like any external application.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class Apps {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Resource
    private TransactionSynchronizationRegistry transactions;

    @jakarta.inject.Inject
    private dev.courier.reliable.Topics topics;

    @Resource
    private jakarta.enterprise.concurrent.ManagedExecutorService managedExecutor;

    @jakarta.inject.Inject
    private dev.courier.reliable.LocalCourierApi local;

    private LossyCourierApi courier;
    private dev.courier.client.CourierApi http;
    private final Map<String, ReliableProducer> producers = new ConcurrentHashMap<>();
    private final Map<String, ReliableProducer> asyncProducers = new ConcurrentHashMap<>();
    private final Map<String, ReliableConsumer> consumers = new ConcurrentHashMap<>();
    private final Map<String, ReliableConsumer> batchingConsumers = new ConcurrentHashMap<>();

    @PostConstruct
    void start() {
        // The test applications call as an admin (bin/credentials --test sets courier.test.password).
        org.eclipse.microprofile.config.Config config = org.eclipse.microprofile.config.ConfigProvider.getConfig();
        http = new HttpCourierApi(
                URI.create("http://localhost:" + System.getenv().getOrDefault("COURIER_HTTP_PORT", "19080") + "/"),
                Duration.ofSeconds(10),
                "admin",
                config.getValue("courier.test.password", String.class));
        courier = new LossyCourierApi(http);
        try {
            ClientTables.create(dataSource);
            try (Connection c = dataSource.getConnection()) {
                create(c, "CREATE TABLE test_order (id VARCHAR(36) NOT NULL PRIMARY KEY, message_id VARCHAR(36))");
                create(
                        c,
                        "CREATE TABLE test_effect (message_id VARCHAR(36) NOT NULL, subscriber VARCHAR(63) NOT NULL)");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        // The test MDBs' subscribers first, then their endpoints (autoStart false in test-listeners.xml): an MDB
        // that attached before its subscriber's queue existed would make the broker auto-create one no copy reaches.
        for (String topic : new String[] {InboxListeners.LOCAL, InboxListeners.XA}) {
            try {
                topics.subscribe(topic, InboxListeners.SUBSCRIBER, 10, Duration.ofSeconds(30), null);
            } catch (RuntimeException e) {
                java.util.logging.Logger.getLogger(Apps.class.getName())
                        .warning("subscribing the test MDB of " + topic + " failed (broker down?): " + e);
            }
        }
        managedExecutor.execute(Apps::resumeListeners);
    }

    /** Resumes the test MDBs' endpoints through Liberty's ServerEndpointControl MBean, once they are installed. */
    private static void resumeListeners() {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(Apps.class.getName());
        for (int attempt = 0; attempt < 120; attempt++) {
            if (dev.courier.scenario.ListenerEndpoints.resume("LocalInboxListener", "XaInboxListener")) {
                log.info("resumed the test MDBs' endpoints");
                return;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.warning("the test MDBs' endpoints never showed up in ServerEndpointControl.listEndpoints");
    }

    private static void create(Connection c, String ddl) {
        try (Statement statement = c.createStatement()) {
            statement.executeUpdate(ddl);
        } catch (SQLException e) {
            // already there from an earlier deployment
        }
    }

    /** The helpers call Courier in process ({@link dev.courier.reliable.LocalCourierApi}) or over HTTP (default). */
    public void inProcess(boolean inProcess) {
        courier.over(inProcess ? local : http);
    }

    public dev.courier.reliable.LocalCourierApi local() {
        return local;
    }

    public LossyCourierApi courier() {
        return courier;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The producer helper confirming synchronously: the tests check each step's outcome as it returns. */
    public ReliableProducer producer(String name) {
        return producers.computeIfAbsent(
                name, n -> new ReliableProducer(courier, n, dataSource, transactions).confirmingSynchronously());
    }

    /** The producer helper as an application gets it by default: confirming on the default managed executor. */
    public ReliableProducer asyncProducer(String name) {
        return asyncProducers.computeIfAbsent(name, n -> new ReliableProducer(courier, n, dataSource, transactions));
    }

    /** The consumer helper reporting synchronously: the tests check each report's effect as the call returns. */
    public ReliableConsumer consumer(String subscriber) {
        return consumers.computeIfAbsent(
                subscriber, s -> new ReliableConsumer(courier, s, dataSource, transactions).reportingSynchronously());
    }

    /** The consumer helper as an application gets it by default: reports batched after commit. */
    public ReliableConsumer batchingConsumer(String subscriber) {
        return batchingConsumers.computeIfAbsent(
                subscriber, s -> new ReliableConsumer(courier, s, dataSource, transactions));
    }

    public BarrierCheckBack checkBack() {
        return new BarrierCheckBack(dataSource);
    }
}
