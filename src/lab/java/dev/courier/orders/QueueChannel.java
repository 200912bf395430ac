package dev.courier.orders;

import dev.courier.queue.jdbc.CourierQueue;
import dev.courier.queue.jdbc.QueueException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/**
 * Queue mode: the order (PLACED) and its message on the transactional queue {@code scenario_orders}, both in the
 * orders database, in one transaction of this application's own: the queue library runs Courier's SQL API on the
 * order's connection. Courier serves the queue beside it (the inventory's worker receives from it there).
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class QueueChannel {

    static final String QUEUE = "scenario_orders";

    @Inject
    private OrderBook book;

    @Inject
    private CourierQueue queue;

    // No fault tolerance on the send: it is an INSERT in the order's own transaction and database, nothing remote
    // to wait for; a failure rolls the order back with it, and retrying inside that transaction could not help.
    /** @throws OrderProblem 501 on a database without Courier's SQL API (Derby); 503 before the queue exists */
    public OrderState place(Order order) {
        if (!book.postgres()) {
            throw new OrderProblem(
                    501, "Not implemented", "queue mode needs PostgreSQL: the queue library calls Courier's SQL API");
        }
        book.insert(order, OrderState.PLACED);
        try {
            queue.send(QUEUE, order.message());
        } catch (QueueException e) {
            if (e.reason() == QueueException.Reason.QUEUE_NOT_FOUND) {
                // The inventory's worker defines the queue when it starts: not yet.
                throw new OrderProblem(503, "Not ready", "the queue mode is still setting up; retry in a moment");
            }
            // The library's refusal as REST would answer it; a database it could not use is a 503 (retry).
            int status = e.reason() == QueueException.Reason.DATABASE
                    ? 503
                    : e.reason().status();
            throw new OrderProblem(status, "Queue refused the order", e.getMessage());
        }
        return OrderState.PLACED;
    }
}
