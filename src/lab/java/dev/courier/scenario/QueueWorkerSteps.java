package dev.courier.scenario;

import dev.courier.platform.Columns;
import dev.courier.queue.TransactionalQueue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
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

    @Inject
    private Clock clock;

    /** Reserves for the order unless the inbox says it was done; records the outcome in the inbox. */
    OrderState reserveOnce(Order order) {
        try (Connection c = inventory.dataSource().getConnection()) {
            Optional<OrderState> done = inventory.processed(c, order.id());
            if (done.isPresent()) {
                return done.get();
            }
            OrderState outcome = inventory.reserve(order);
            // A concurrent copy of the same order waits here on the key, then fails and rolls back its reservation.
            try (PreparedStatement insert =
                    c.prepareStatement("INSERT INTO scenario_inbox (order_id, outcome, created_at) VALUES (?, ?, ?)")) {
                insert.setString(1, order.id());
                insert.setString(2, outcome.name());
                insert.setTimestamp(3, Columns.timestamp(clock.instant()), Columns.utc());
                insert.executeUpdate();
            }
            return outcome;
        } catch (SQLException e) {
            throw new IllegalStateException("reserving once failed", e);
        }
    }

    /** Acknowledges the message and records the outcome on the order, together. */
    void ackAndSettle(String leaseToken, String orderId, OrderState outcome) {
        queue.ack(leaseToken);
        book.settle(orderId, outcome);
    }
}
