package dev.courier.scenario;

import dev.courier.platform.SchemaMigration;
import dev.courier.queue.Queues;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import javax.sql.DataSource;

/**
 * Migrates the lab's tables at start-up, after Courier's own: the orders service's tables in the orders database
 * ({@code jdbc/labOrders}, {@code db/lab-orders/<dialect>/}, history in {@code courier_lab_schema_history}, beside
 * Courier's queue schema there) and the inventory database ({@code db/inventory/<dialect>/}). Only courier-lab.war
 * holds it: a product server has none of these tables.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@TransactionManagement(TransactionManagementType.BEAN)
public class LabSchema {

    static final String ORDERS_HISTORY_TABLE = "courier_lab_schema_history";

    @Resource(lookup = "jdbc/labOrders")
    private DataSource orders;

    @Resource(lookup = "jdbc/inventory")
    private DataSource inventory;

    @Inject
    private Queues queues;

    @PostConstruct
    void migrate() {
        // Courier's queue schema first in the orders database (one of its queue databases, migrated on first use, as
        // listing the queues does): Courier's history creates and later drops a table of the orders' name there (V4,
        // V10, from when the lab lived in Courier's database), which would collide with the orders service's own.
        queues.list();
        SchemaMigration.migrate(orders, "db/lab-orders", ORDERS_HISTORY_TABLE);
        SchemaMigration.migrate(inventory, "db/inventory", SchemaMigration.HISTORY_TABLE);
        seed();
    }

    /** The item an order without a sku buys: ample stock, created once. */
    private void seed() {
        try (java.sql.Connection c = inventory.getConnection()) {
            try (java.sql.PreparedStatement select = c.prepareStatement("SELECT 1 FROM scenario_stock WHERE sku = ?")) {
                select.setString(1, Order.DEFAULT_SKU);
                try (java.sql.ResultSet rows = select.executeQuery()) {
                    if (rows.next()) {
                        return;
                    }
                }
            }
            try (java.sql.PreparedStatement insert =
                    c.prepareStatement("INSERT INTO scenario_stock (sku, available) VALUES (?, ?)")) {
                insert.setString(1, Order.DEFAULT_SKU);
                insert.setInt(2, 1_000_000_000);
                insert.executeUpdate();
            }
        } catch (java.sql.SQLException e) {
            if (!"23505".equals(e.getSQLState())) { // another server seeded it meanwhile
                throw new IllegalStateException("seeding the inventory failed", e);
            }
        }
    }
}
