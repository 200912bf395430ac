package dev.courier.scenario;

import dev.courier.platform.SchemaMigration;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import java.time.Clock;
import javax.sql.DataSource;

/** Migrates the inventory database ({@code db/inventory/<dialect>/}) at start-up, as Courier's own is migrated. */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class InventorySchema {

    @Resource(lookup = "jdbc/inventory")
    private DataSource inventory;

    @Inject
    private Clock clock;

    @PostConstruct
    void migrate() {
        SchemaMigration.migrate(inventory, "db/inventory", clock);
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
