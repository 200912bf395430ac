package dev.courier.lab;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The lab's own view of the scenario's two PostgreSQL databases: it checks consistency from the rows, never from
 * Courier's counters, and reads the times that make time-to-consistency.
 */
final class LabDatabases implements AutoCloseable {

    /** What the databases say about one order. */
    record Outcome(long createdMillis, int reservations, long reservedMillis, String state) {
    }

    private final Connection orders;
    private final Connection inventory;

    LabDatabases() throws SQLException {
        orders = connect(System.getProperty("courier.db.name", "courier"));
        inventory = connect("courier_inventory");
    }

    /** The orders' outcomes, by order id. */
    Map<String, Outcome> outcomes(List<String> ids) throws SQLException {
        Map<String, long[]> reserved = new HashMap<>();
        try (PreparedStatement select = inventory.prepareStatement("SELECT order_id, COUNT(*), "
                + "MIN(EXTRACT(EPOCH FROM created_at) * 1000) FROM scenario_reservation WHERE order_id = ANY(?) GROUP BY order_id")) {
            select.setArray(1, array(inventory, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    reserved.put(rows.getString(1), new long[] {rows.getLong(2), (long) rows.getDouble(3)});
                }
            }
        }
        Map<String, Outcome> outcomes = new HashMap<>();
        try (PreparedStatement select = orders.prepareStatement("SELECT id, EXTRACT(EPOCH FROM created_at) * 1000, state "
                + "FROM scenario_order WHERE id = ANY(?)")) {
            select.setArray(1, array(orders, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    long[] r = reserved.getOrDefault(rows.getString(1), new long[] {0, 0});
                    outcomes.put(rows.getString(1), new Outcome((long) rows.getDouble(2), (int) r[0], r[1], rows.getString(3)));
                }
            }
        }
        return outcomes;
    }

    long negativeStock() throws SQLException {
        try (Statement query = inventory.createStatement();
                ResultSet rows = query.executeQuery("SELECT COUNT(*) FROM scenario_stock WHERE available < 0")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static Array array(Connection c, List<String> ids) throws SQLException {
        return c.createArrayOf("varchar", ids.toArray());
    }

    static Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":"
                + System.getProperty("courier.db.port", "5432") + "/" + database,
                System.getProperty("courier.db.user", "courier"), System.getProperty("courier.db.password", "courier"));
    }

    @Override
    public void close() throws SQLException {
        orders.close();
        inventory.close();
    }
}
