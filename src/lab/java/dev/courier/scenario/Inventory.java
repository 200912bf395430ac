package dev.courier.scenario;

import dev.courier.platform.Columns;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The inventory service's business, the same for every mode: reserve stock for an order or say it is out of
 * stock. Runs in the caller's transaction on the inventory database; it is not idempotent by itself — each
 * mechanism makes sure it runs once per order.
 */
@ApplicationScoped
public class Inventory {

    @Resource(lookup = "jdbc/inventory")
    private DataSource dataSource;

    @Inject
    private Clock clock;

    /** @return RESERVED (stock taken, reservation written) or REJECTED (not enough stock, nothing written) */
    public OrderState reserve(Order order) {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement take = c.prepareStatement(
                    "UPDATE scenario_stock SET available = available - ? WHERE sku = ? AND available >= ?")) {
                take.setInt(1, order.quantity());
                take.setString(2, order.sku());
                take.setInt(3, order.quantity());
                if (take.executeUpdate() == 0) {
                    return OrderState.REJECTED;
                }
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO scenario_reservation (order_id, sku, "
                    + "quantity, mode, created_at) VALUES (?, ?, ?, ?, ?)")) {
                insert.setString(1, order.id());
                insert.setString(2, order.sku());
                insert.setInt(3, order.quantity());
                insert.setString(4, order.mode().wire());
                insert.setTimestamp(5, Columns.timestamp(clock.instant()), Columns.utc());
                insert.executeUpdate();
            }
            return OrderState.RESERVED;
        } catch (SQLException e) {
            throw new IllegalStateException("reserving stock failed", e);
        }
    }

    /** Sets the stock of {@code sku} to {@code available} (creating the item), in a transaction of its own. */
    @Transactional
    public void stock(String sku, int available) {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement update =
                    c.prepareStatement("UPDATE scenario_stock SET available = ? WHERE sku = ?")) {
                update.setInt(1, available);
                update.setString(2, sku);
                if (update.executeUpdate() == 1) {
                    return;
                }
            }
            try (PreparedStatement insert =
                    c.prepareStatement("INSERT INTO scenario_stock (sku, available) VALUES (?, ?)")) {
                insert.setString(1, sku);
                insert.setInt(2, available);
                insert.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("setting stock failed", e);
        }
    }

    /**
     * The outcome recorded for {@code orderId} by {@link #recordOutcome}, if its order was processed. In the
     * caller's transaction, if any.
     */
    Optional<OrderState> processed(String orderId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement select =
                        c.prepareStatement("SELECT outcome FROM scenario_inbox WHERE order_id = ?")) {
            select.setString(1, orderId);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(OrderState.valueOf(rows.getString(1))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the order's outcome failed", e);
        }
    }

    /**
     * Records the outcome of {@code orderId} (table {@code scenario_inbox}), in the caller's transaction: the reply
     * the asynchronous modes carry back to the orders service. A second record of one order fails on the key (a
     * concurrent copy waits on it, then fails and rolls back its reservation).
     */
    void recordOutcome(String orderId, OrderState outcome) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO scenario_inbox (order_id, outcome, created_at) VALUES (?, ?, ?)")) {
            insert.setString(1, orderId);
            insert.setString(2, outcome.name());
            insert.setTimestamp(3, Columns.timestamp(clock.instant()), Columns.utc());
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("recording the order's outcome failed", e);
        }
    }

    DataSource dataSource() {
        return dataSource;
    }
}
