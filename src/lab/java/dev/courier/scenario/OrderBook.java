package dev.courier.scenario;

import dev.courier.platform.Columns;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * The inventory's write of its answer onto the order ({@code scenario_order} in the orders database, through the
 * server's {@code jdbc/labOrders}): the queue mode's reply leg and rms's {@code direct} one, a write across services'
 * databases that the orders service's own application ({@code lab-orders.war}) does not make. In the caller's
 * transaction.
 */
@ApplicationScoped
class OrderBook {

    @Resource(lookup = "jdbc/labOrders")
    private DataSource dataSource;

    @Inject
    private Clock clock;

    /** Records the inventory's answer for a PLACED order; a repeated answer changes nothing. */
    void settle(String orderId, OrderState outcome) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement update = c.prepareStatement(
                        "UPDATE scenario_order SET state = ?, settled_at = ? WHERE id = ? AND state = 'PLACED'")) {
            update.setString(1, outcome.name());
            update.setTimestamp(2, Columns.timestamp(clock.instant()), Columns.utc());
            update.setString(3, orderId);
            update.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("settling the order failed", e);
        }
    }

    DataSource dataSource() {
        return dataSource;
    }
}
