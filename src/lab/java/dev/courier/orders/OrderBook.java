package dev.courier.orders;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Calendar;
import java.util.Optional;
import java.util.TimeZone;
import javax.sql.DataSource;

/**
 * The orders service's tables in its own database ({@code jdbc/labOrders}), in the caller's transaction: the orders,
 * and the shipments XA mode's shipping service books for them.
 */
@ApplicationScoped
public class OrderBook {

    /** The orders database's JNDI name, the one datasource this application has of its own. */
    public static final String DATABASE = "jdbc/labOrders";

    /** "No such table": PostgreSQL's 42P01, Derby's 42X05. */
    private static final java.util.Set<String> MISSING_TABLE = java.util.Set.of("42P01", "42X05");

    @Resource(lookup = DATABASE)
    private DataSource dataSource;

    void insert(Order order, OrderState state) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO scenario_order (id, mode, sku, quantity, state, created_at, settled_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            Instant now = Instant.now();
            insert.setString(1, order.id());
            insert.setString(2, order.mode().wire());
            insert.setString(3, order.sku());
            insert.setInt(4, order.quantity());
            insert.setString(5, state.name());
            insert.setTimestamp(6, Timestamp.from(now), utc());
            insert.setTimestamp(7, state == OrderState.PLACED ? null : Timestamp.from(now), utc());
            insert.executeUpdate();
        } catch (SQLException e) {
            if (MISSING_TABLE.contains(e.getSQLState())) {
                // The lab's set-up (courier-lab.war) makes this service's tables when it starts: not yet.
                throw new OrderProblem(503, "Not ready", "the orders service's tables are not made yet; retry shortly");
            }
            throw new IllegalStateException("writing the order failed", e);
        }
    }

    /** Records the inventory's answer for a PLACED order; a repeated answer changes nothing. */
    void settle(String orderId, OrderState outcome) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement update = c.prepareStatement(
                        "UPDATE scenario_order SET state = ?, settled_at = ? WHERE id = ? AND state = 'PLACED'")) {
            update.setString(1, outcome.name());
            update.setTimestamp(2, Timestamp.from(Instant.now()), utc());
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

    /** The order's shipment (XA mode only), once the shipping service has booked it. */
    Optional<Shipment> shipment(String orderId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement select =
                        c.prepareStatement("SELECT delivery, shipped_at FROM scenario_shipment WHERE order_id = ?")) {
            select.setString(1, orderId);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next()
                        ? Optional.of(new Shipment(
                                rows.getInt(1), rows.getTimestamp(2, utc()).toInstant()))
                        : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the shipment failed", e);
        }
    }

    private volatile Boolean postgres;

    /** Whether the orders database is PostgreSQL (where Courier's SQL API, and so the queue library, works). */
    boolean postgres() {
        if (postgres == null) {
            try (Connection c = dataSource.getConnection()) {
                postgres = c.getMetaData()
                        .getDatabaseProductName()
                        .toLowerCase(java.util.Locale.ROOT)
                        .contains("postgres");
            } catch (SQLException e) {
                throw new IllegalStateException("reading the orders database's kind failed", e);
            }
        }
        return postgres;
    }

    DataSource dataSource() {
        return dataSource;
    }

    // The tables' timestamps are UTC without a zone, as Courier's are.
    private static Calendar utc() {
        return Calendar.getInstance(TimeZone.getTimeZone("UTC"));
    }

    /** A booked shipment: the delivery count of the event's copy that booked it, and when. */
    record Shipment(int delivery, Instant shippedAt) {}
}
