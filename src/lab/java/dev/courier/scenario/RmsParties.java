package dev.courier.scenario;

import dev.courier.access.Grants;
import dev.courier.access.Principals;
import dev.courier.audit.AuditTrail;
import dev.courier.client.CallSignature;
import dev.courier.client.ClientTables;
import dev.courier.client.CourierApi;
import dev.courier.client.HttpCourierApi;
import dev.courier.client.ReliableConsumer;
import dev.courier.client.ReliableProducer;
import dev.courier.reliable.LocalCourierApi;
import dev.courier.reliable.Producers;
import dev.courier.reliable.Topics;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;

/**
 * RMS mode's set-up, and the inventory service as a client of Courier's reliable message service, wired from the
 * helpers as a separate application would be: it consumes the orders (inbox in the inventory database) and produces
 * {@code scenario-replies} (barrier in the inventory database). It reaches Courier over HTTP at
 * {@code courier.scenario.courier-url}, or in process when {@code courier.scenario.courier-transport} is
 * {@code local}. The orders service is an application of its own ({@code lab-orders.war}, over HTTP always): the
 * set-up here registers it as a producer and subscriber (an operator's work), makes its helper tables in the orders
 * database and answers Courier's check-backs for it from them ({@link ScenarioResource}), since its signing secret,
 * shown once at registration, stays in this server.
 */
@ApplicationScoped
public class RmsParties {

    static final String ORDERS_TOPIC = "scenario-orders";
    static final String REPLIES_TOPIC = "scenario-replies";
    static final String ORDERS_SERVICE = "scenario-orders";
    static final String INVENTORY_SERVICE = "scenario-inventory";

    @Inject
    @ConfigProperty(name = "courier.scenario.courier-url", defaultValue = "http://localhost:9080/")
    String courierUrl;

    /**
     * How the two services' helpers reach Courier: {@code http} (default), each over the REST API as itself, as
     * separate applications would; {@code local}, in process ({@link LocalCourierApi}), as an application that
     * embeds Courier would (the lab's second rms row: what the protocol costs without the HTTP calls).
     */
    @Inject
    @ConfigProperty(name = "courier.scenario.courier-transport", defaultValue = "http")
    String transport;

    /**
     * How the inventory's reply reaches the order: {@code reliable} (default), a second reliable message through
     * Courier, as two separate services would; {@code direct}, written on the order after the inventory's commit,
     * the queue mode's shape ({@link RmsDirectReply}: the comparison lab's setting, so that both asynchronous modes
     * carry their replies alike).
     */
    @Inject
    @ConfigProperty(name = "courier.scenario.rms-reply", defaultValue = "reliable")
    String reply;

    @Inject
    private LocalCourierApi local;

    @Inject
    private AuditTrail trail;

    // The inventory service calls Courier's API as itself, as any producer and consumer would: with an account of
    // its own (bin/credentials --lab makes it, and the orders service's) that the topics' grants narrow to its part.
    @Inject
    @ConfigProperty(name = "courier.scenario.inventory.password")
    Optional<String> inventoryPassword;

    @Resource(lookup = "jdbc/labOrders")
    private DataSource ordersDb;

    @Resource(lookup = "jdbc/inventory")
    private DataSource inventoryDb;

    @Resource
    private TransactionSynchronizationRegistry transactions;

    @Inject
    private Producers producers;

    @Inject
    private Topics topics;

    private volatile boolean ready;
    private boolean direct;

    @Inject
    private io.opentelemetry.api.trace.Tracer tracer;

    private ReliableProducer inventory;
    private ReliableConsumer inventoryInbox;

    @PostConstruct
    void wire() {
        direct = direct(reply);
        CourierApi asInventory = api(INVENTORY_SERVICE, inventoryPassword);
        inventory = new ReliableProducer(asInventory, INVENTORY_SERVICE, inventoryDb, transactions);
        inventoryInbox = new ReliableConsumer(asInventory, "inventory", inventoryDb, transactions, tracer);
    }

    /** How one of the services reaches Courier, as the {@code courier.scenario.courier-transport} says. */
    CourierApi api(String service, Optional<String> password) {
        return switch (transport) {
            case "http" ->
                new HttpCourierApi(URI.create(courierUrl), Duration.ofSeconds(10), service, password.orElse(""));
            case "local" -> local;
            default ->
                throw new IllegalArgumentException(
                        "courier.scenario.courier-transport must be http or local, not '" + transport + "'");
        };
    }

    /**
     * Registers both services and both topics with Courier and creates the helpers' tables, once. Idempotent, and
     * called with no transaction ({@link RmsSetUp}): each call to Courier commits on its own, so an attempt that
     * failed half-way left only registrations the next attempt makes again.
     *
     * <p>Guarded as calls to a remote service are: an attempt that hangs past 30 s is cut (longer than Courier's own
     * waits, such as the broker management's 10 s for an answer, which it never asks again once the request went out, so it
     * cuts only a call hanging where nothing else would end it), and a failed attempt is tried twice more within
     * half a second or so, which rides out a moment's failure (a pooled database connection the database had
     * closed) without waiting for the timer's next round.
     *
     * @throws RuntimeException when the database or the broker cannot be reached yet
     */
    // No @Retry can go around a transaction on the same bean: the transaction's interceptor wraps fault
    // tolerance's, so the retries would run inside the transaction that failed. Here there is none to wrap.
    @Timeout(30_000)
    @Retry(maxRetries = 2, delay = 200, jitter = 100)
    synchronized void setUp() throws SQLException {
        if (ready) {
            return;
        }
        ClientTables.create(ordersDb);
        ClientTables.create(inventoryDb);
        for (String service : List.of(ORDERS_SERVICE, INVENTORY_SERVICE)) {
            String checkBack = courierUrl + "api/scenario/check-back/" + service.substring("scenario-".length());
            // Each service alone acts for its own producer name.
            producers.register(service, checkBack, null, only(service));
            audit("producer.register", "producer " + service, checkBack);
        }
        topics.subscribe(ORDERS_TOPIC, "inventory", null, Duration.ofSeconds(30), only(INVENTORY_SERVICE));
        audit("topic.subscribe", "topic " + ORDERS_TOPIC + " subscriber inventory", null);
        topics.subscribe(REPLIES_TOPIC, "orders", null, Duration.ofSeconds(30), only(ORDERS_SERVICE));
        audit("topic.subscribe", "topic " + REPLIES_TOPIC + " subscriber orders", null);
        // Orders are sent by the orders service and consumed by the inventory service; replies the other way.
        Grants orders = grants(ORDERS_SERVICE, INVENTORY_SERVICE);
        topics.grant(ORDERS_TOPIC, orders);
        audit("topic.define", "topic " + ORDERS_TOPIC, orders.toJson().toString());
        Grants replies = grants(INVENTORY_SERVICE, ORDERS_SERVICE);
        topics.grant(REPLIES_TOPIC, replies);
        audit("topic.define", "topic " + REPLIES_TOPIC, replies.toJson().toString());
        ready = true;
    }

    /** The set-up's administrative acts are the trail's like an admin's calls, by the lab's own hand. */
    private void audit(String action, String target, String detail) {
        trail.record("(lab scenario)", action, "in process: " + target, 200, detail);
    }

    private static Grants grants(String sender, String consumer) {
        return Grants.fromJson(jakarta.json.Json.createObjectBuilder()
                .add("send", jakarta.json.Json.createArrayBuilder().add("user:" + sender))
                .add("consume", jakarta.json.Json.createArrayBuilder().add("user:" + consumer))
                .build());
    }

    private static Principals only(String user) {
        return Principals.fromJson(
                jakarta.json.Json.createArrayBuilder().add("user:" + user).build());
    }

    /** Whether the reply goes straight to the order ({@code courier.scenario.rms-reply=direct}). */
    boolean directReply() {
        return direct;
    }

    /** @throws IllegalArgumentException for a reply that is neither {@code reliable} nor {@code direct} */
    static boolean direct(String reply) {
        return switch (reply) {
            case "direct" -> true;
            case "reliable" -> false;
            default ->
                throw new IllegalArgumentException(
                        "courier.scenario.rms-reply must be reliable or direct, not '" + reply + "'");
        };
    }

    ReliableProducer inventory() {
        return inventory;
    }

    ReliableConsumer inventoryInbox() {
        return inventoryInbox;
    }

    /**
     * Whether a call to {@code service}'s ({@code orders} or {@code inventory}) URL carries Courier's signature
     * with that producer's secret, within {@link CallSignature#DEFAULT_TOLERANCE}.
     */
    boolean signedByCourier(String service, String timestamp, String signature, String method, String target) {
        String producer = "orders".equals(service) ? ORDERS_SERVICE : INVENTORY_SERVICE;
        return producers
                .signingSecret(producer)
                .map(secret -> CallSignature.verify(
                        secret,
                        timestamp,
                        signature,
                        method,
                        target,
                        "",
                        Instant.now(),
                        CallSignature.DEFAULT_TOLERANCE))
                .orElse(false);
    }

    /** The headers that sign a service's answer to Courier's call ({@link CallSignature#answerHeaders}). */
    java.util.Map<String, String> signAnswer(String service, String callSignature, String answer) {
        String producer = "orders".equals(service) ? ORDERS_SERVICE : INVENTORY_SERVICE;
        return producers
                .signingSecret(producer)
                .map(secret -> CallSignature.answerHeaders(secret, callSignature, answer))
                .orElse(java.util.Map.of());
    }

    DataSource ordersDb() {
        return ordersDb;
    }

    DataSource inventoryDb() {
        return inventoryDb;
    }
}
