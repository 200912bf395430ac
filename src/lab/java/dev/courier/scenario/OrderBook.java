package dev.courier.scenario;

import dev.courier.platform.Columns;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import javax.sql.DataSource;

/** The orders service's table ({@code scenario_order} in the orders database), in the caller's transaction. */
@ApplicationScoped
class OrderBook {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private Clock clock;

    void insert(Order order, OrderState state) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO scenario_order (id, mode, sku, quantity, state, created_at, settled_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, order.id());
            insert.setString(2, order.mode().wire());
            insert.setString(3, order.sku());
            insert.setInt(4, order.quantity());
            insert.setString(5, state.name());
            insert.setTimestamp(6, Columns.timestamp(clock.instant()), Columns.utc());
            insert.setTimestamp(
                    7, state == OrderState.PLACED ? null : Columns.timestamp(clock.instant()), Columns.utc());
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("writing the order failed", e);
        }
    }

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

    Optional<OrderState> state(String orderId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement select = c.prepareStatement("SELECT state FROM scenario_order WHERE id = ?")) {
            select.setString(1, orderId);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(OrderState.valueOf(rows.getString(1))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the order failed", e);
        }
    }

    DataSource dataSource() {
        return dataSource;
    }
}
