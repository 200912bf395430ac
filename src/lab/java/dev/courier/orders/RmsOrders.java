package dev.courier.orders;

import dev.courier.client.CourierApi;
import dev.courier.client.HttpCourierApi;
import dev.courier.client.ReliableConsumer;
import dev.courier.client.ReliableProducer;
import io.opentelemetry.api.trace.Tracer;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The orders service as a client of Courier's reliable message service, over its REST API as the user
 * {@code scenario-orders}: it produces {@code scenario-orders} (barrier rows in the orders database) and consumes
 * {@code scenario-replies} as subscriber {@code orders} (inbox rows there too). The lab's set-up registers the
 * producer, the topics and their grants (an operator's work); Courier checks back with the orders database's barrier.
 */
@ApplicationScoped
public class RmsOrders {

    static final String ORDERS_TOPIC = "scenario-orders";
    static final String SERVICE = "scenario-orders";

    @Inject
    @ConfigProperty(name = "courier.scenario.courier-url", defaultValue = "http://localhost:9080/")
    String courierUrl;

    /** The orders service's password (bin/credentials --lab makes the account). */
    @Inject
    @ConfigProperty(name = "courier.scenario.orders.password")
    Optional<String> password;

    @Inject
    private OrderBook book;

    @Inject
    private Tracer tracer;

    @Resource
    private TransactionSynchronizationRegistry transactions;

    private ReliableProducer producer;
    private ReliableConsumer replies;

    @PostConstruct
    void wire() {
        CourierApi courier =
                new HttpCourierApi(URI.create(courierUrl), Duration.ofSeconds(10), SERVICE, password.orElse(""));
        producer = new ReliableProducer(courier, SERVICE, book.dataSource(), transactions);
        replies = new ReliableConsumer(courier, "orders", book.dataSource(), transactions, tracer);
    }

    ReliableProducer producer() {
        return producer;
    }

    ReliableConsumer replies() {
        return replies;
    }
}
