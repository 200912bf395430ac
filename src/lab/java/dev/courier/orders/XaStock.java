package dev.courier.orders;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Calendar;
import java.util.TimeZone;
import javax.sql.DataSource;

/**
 * XA mode's reservation, written by the orders service itself into the inventory's database ({@code jdbc/inventory},
 * a second branch of the order's global transaction): what the baseline is, one transaction across both services'
 * databases. The statements are the inventory service's own reservation's (the asynchronous modes make theirs there).
 */
@ApplicationScoped
public class XaStock {

    @Resource(lookup = "jdbc/inventory")
    private DataSource inventory;

    /** @return whether the stock covered the order (then taken, and the reservation written; otherwise nothing) */
    boolean reserve(Order order) {
        try (Connection c = inventory.getConnection()) {
            try (PreparedStatement take = c.prepareStatement(
                    "UPDATE scenario_stock SET available = available - ? WHERE sku = ? AND available >= ?")) {
                take.setInt(1, order.quantity());
                take.setString(2, order.sku());
                take.setInt(3, order.quantity());
                if (take.executeUpdate() == 0) {
                    return false;
                }
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO scenario_reservation (order_id, sku, "
                    + "quantity, mode, created_at) VALUES (?, ?, ?, ?, ?)")) {
                insert.setString(1, order.id());
                insert.setString(2, order.sku());
                insert.setInt(3, order.quantity());
                insert.setString(4, order.mode().wire());
                insert.setTimestamp(
                        5, Timestamp.from(Instant.now()), Calendar.getInstance(TimeZone.getTimeZone("UTC")));
                insert.executeUpdate();
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("reserving stock failed", e);
        }
    }
}
