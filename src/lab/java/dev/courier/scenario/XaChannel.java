package dev.courier.scenario;

import dev.courier.platform.FaultInjection;
import dev.courier.twophase.XaOutcomes;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.concurrent.ThreadLocalRandom;

/**
 * XA mode: the order (orders database), the reservation (inventory database) and the {@code OrderPlaced} event
 * (broker) in one container-managed transaction — three resources, two-phase commit. Out of stock throws
 * {@link OutOfStockException}: the whole transaction rolls back, nothing is written anywhere.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class XaChannel {

    /** The multicast address the OrderPlaced events are published to. */
    static final String EVENTS = "scenario.order-placed";

    static final String BEFORE_PUBLISH = "scenario.xa.before-publish";

    @Inject
    private OrderBook book;

    @Inject
    private Inventory inventory;

    @Inject
    private FaultInjection faults;

    @Inject
    private SlowConsumer slow;

    @Inject
    private XaOutcomes outcomes;

    @Inject
    private XaLockHolds lockHolds;

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Resource
    private TransactionSynchronizationRegistry transaction;

    public OrderState place(Order order) {
        outcomes.count("scenario");
        book.insert(order, OrderState.RESERVED);
        long start = System.nanoTime();
        if (inventory.reserve(order) == OrderState.REJECTED) {
            throw new OutOfStockException(order.sku(), order.quantity());
        }
        long locked = System.nanoTime(); // the stock row is locked from here until the global transaction ends
        transaction.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
                lockHolds.record(System.nanoTime() - locked);
            }
        });
        // Half the requests meet the slowed inventory instance; its slowness is inside the global transaction.
        slow.pace(Mode.XA, ThreadLocalRandom.current().nextInt(2), System.nanoTime() - start);
        faults.checkpoint(BEFORE_PUBLISH);
        try (JMSContext jms = connectionFactory.createContext()) {
            jms.createProducer()
                    .setProperty("orderId", order.id())
                    .send(
                            jms.createTopic(EVENTS),
                            "{\"orderId\":\"" + order.id() + "\",\"sku\":\"" + order.sku() + "\"}");
        }
        return OrderState.RESERVED;
    }
}
