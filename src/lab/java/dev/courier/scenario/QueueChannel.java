package dev.courier.scenario;

import dev.courier.platform.Json;
import dev.courier.queue.Payload;
import dev.courier.queue.QueueName;
import dev.courier.queue.SendOptions;
import dev.courier.queue.TransactionalQueue;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/**
 * Queue mode, orders side: the order (PLACED) and its message on the transactional queue {@code scenario_orders},
 * both in the orders database, in one local transaction. {@link QueueWorker} does the rest.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class QueueChannel {

    static final QueueName QUEUE = QueueName.of("scenario_orders");

    @Inject
    private OrderBook book;

    @Inject
    private TransactionalQueue queue;

    // No fault tolerance on the send: it is an INSERT in the order's own transaction and database, nothing remote
    // to wait for; a failure rolls the order back with it, and retrying inside that transaction could not help.
    public OrderState place(Order order) {
        book.insert(order, OrderState.PLACED);
        queue.send(
                QUEUE,
                Payload.json(Json.createObjectBuilder()
                        .add("orderId", order.id())
                        .add("sku", order.sku())
                        .add("quantity", order.quantity())
                        .build()),
                SendOptions.now());
        return OrderState.PLACED;
    }
}
