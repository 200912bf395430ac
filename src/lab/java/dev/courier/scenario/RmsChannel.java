package dev.courier.scenario;

import dev.courier.platform.Json;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/**
 * RMS mode, orders side: the order (PLACED) and the producer helper's barrier row in one local transaction of the
 * orders database; the helper prepared the message over Courier's REST API first and confirms it after the
 * commit. {@link RmsWorkers} runs the inventory side and applies the inventory's replies.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class RmsChannel {

    @Inject
    private OrderBook book;

    @Inject
    private RmsParties parties;

    public OrderState place(Order order) {
        parties.requireReady();
        // The prepare's round trip first, holding no connection (see ReliableProducer).
        parties.orders()
                .send(
                        RmsParties.ORDERS_TOPIC,
                        Json.createObjectBuilder()
                                .add("orderId", order.id())
                                .add("sku", order.sku())
                                .add("quantity", order.quantity())
                                .build()
                                .toString());
        book.insert(order, OrderState.PLACED);
        return OrderState.PLACED;
    }
}
