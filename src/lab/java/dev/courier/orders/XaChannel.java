package dev.courier.orders;

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
 * (broker) in one container-managed transaction — three resources, two-phase commit. Out of stock answers 409 and
 * rolls the whole transaction back: nothing is written anywhere.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class XaChannel {

    /** The multicast address the OrderPlaced events are published to (the shipping service subscribes). */
    static final String EVENTS = "scenario.order-placed";

    @Inject
    private OrderBook book;

    @Inject
    private XaStock stock;

    @Inject
    private OrderFaults faults;

    @Inject
    private XaSlowdown slow;

    @Inject
    private XaLockHolds lockHolds;

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Resource
    private TransactionSynchronizationRegistry transaction;

    /** @throws OrderProblem 409 out of stock */
    public OrderState place(Order order) {
        book.insert(order, OrderState.RESERVED);
        long start = System.nanoTime();
        if (!stock.reserve(order)) {
            throw new OrderProblem(
                    409,
                    "Out of stock",
                    "not enough '" + order.sku() + "' in stock for " + order.quantity() + "; nothing was written");
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
        slow.pace(ThreadLocalRandom.current().nextInt(2), System.nanoTime() - start);
        faults.checkpoint(OrderFaults.XA_BEFORE_PUBLISH);
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
