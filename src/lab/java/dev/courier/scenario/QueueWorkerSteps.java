package dev.courier.scenario;

import dev.courier.queue.TransactionalQueue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.Optional;

/** The queue worker's two transactions: one in the inventory database, then one in the orders database. */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
class QueueWorkerSteps {

    @Inject
    private Inventory inventory;

    @Inject
    private OrderBook book;

    @Inject
    private TransactionalQueue queue;

    /** Reserves for the order unless its outcome was recorded; records the outcome. */
    OrderState reserveOnce(Order order) {
        Optional<OrderState> done = inventory.processed(order.id());
        if (done.isPresent()) {
            return done.get();
        }
        OrderState outcome = inventory.reserve(order);
        inventory.recordOutcome(order.id(), outcome);
        return outcome;
    }

    /** Acknowledges the message and records the outcome on the order, together. */
    void ackAndSettle(String leaseToken, String orderId, OrderState outcome) {
        queue.ack(leaseToken);
        book.settle(orderId, outcome);
    }
}
