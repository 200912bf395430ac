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
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The shipping service's table ({@code scenario_shipment} in the orders database): one shipment per XA order,
 * booked when its {@code OrderPlaced} event arrives, in the caller's transaction. Booking is idempotent: an order
 * already shipped books nothing, so a copy of its event that comes again changes nothing.
 */
@ApplicationScoped
class Shipments {

    /** A booked shipment: the JMS delivery count of the event's copy that booked it, and when. */
    record Shipment(String orderId, int delivery, Instant shippedAt) {}

    @Resource(lookup = "jdbc/labOrders")
    private DataSource dataSource;

    @Inject
    private Clock clock;

    /**
     * Books the order's shipment unless it has one.
     *
     * @param delivery the JMS delivery count of the event's copy
     * @return whether this call booked it (false: it was shipped before)
     */
    boolean ship(String orderId, String sku, int delivery) {
        try (Connection c = dataSource.getConnection()) {
            if (find(c, orderId).isPresent()) {
                return false;
            }
            // Two copies at once would both get here: the second waits on the key, fails and rolls back with its
            // receive, and its redelivery finds the first's row.
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO scenario_shipment (order_id, sku, delivery, shipped_at) VALUES (?, ?, ?, ?)")) {
                insert.setString(1, orderId);
                insert.setString(2, sku);
                insert.setInt(3, delivery);
                insert.setTimestamp(4, Columns.timestamp(clock.instant()), Columns.utc());
                insert.executeUpdate();
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("booking the shipment of order " + orderId + " failed", e);
        }
    }

    /** The order's shipment, if it was booked. */
    Optional<Shipment> shipment(String orderId) {
        try (Connection c = dataSource.getConnection()) {
            return find(c, orderId);
        } catch (SQLException e) {
            throw new IllegalStateException("reading the shipment of order " + orderId + " failed", e);
        }
    }

    private static Optional<Shipment> find(Connection c, String orderId) throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT delivery, shipped_at FROM scenario_shipment WHERE order_id = ?")) {
            select.setString(1, orderId);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next()
                        ? Optional.of(new Shipment(orderId, rows.getInt(1), Columns.instant(rows, 2)))
                        : Optional.empty();
            }
        }
    }
}
