package dev.courier.queue.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.Dialect;
import dev.courier.platform.SchemaMigration;
import dev.courier.testing.Postgres;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An application that starts before Courier has ever seen its database: it brings the database to Courier's
 * schema with Flyway and the migrations inside {@code courier-queue.jar} (the jar as built, on a class loader of
 * its own), beside its own table, and sends in its own transaction at once; Courier, started on that database
 * later, finds the schema current (the same scripts, the same history) and migrates nothing. No server: the test
 * plays the application and then Courier's start-up migration.
 */
@EnabledIfSystemProperty(named = "courier.db", matches = "postgres")
class QueueSchemaFromLibraryIT {

    @Test
    void an_application_migrates_with_the_jars_scripts_and_sends_before_courier_runs() throws Exception {
        String database =
                "app_first_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        Postgres.superuser("CREATE DATABASE " + database + " OWNER courier");
        try {
            PGSimpleDataSource app = new PGSimpleDataSource();
            String[] host = System.getProperty("courier.db.hosts", "localhost:5432")
                    .split(",")[0]
                    .split(":");
            app.setServerNames(new String[] {host[0]});
            app.setPortNumbers(new int[] {Integer.parseInt(host[1])});
            app.setDatabaseName(database);
            app.setUser(System.getProperty("courier.db.user", "courier"));
            app.setPassword(dev.courier.testing.Postgres.password());
            try (Connection c = app.getConnection();
                    Statement ddl = c.createStatement()) {
                ddl.execute("CREATE TABLE shop_order (id TEXT PRIMARY KEY)"); // the application's own, first
            }

            try (URLClassLoader jar = new URLClassLoader(
                    new URL[] {new File("target/courier-queue.jar").toURI().toURL()}, Flyway.class.getClassLoader())) {
                MigrateResult migrated = Flyway.configure(jar)
                        .dataSource(app)
                        .locations("classpath:db/migration/postgresql")
                        .table(SchemaMigration.HISTORY_TABLE)
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .load()
                        .migrate();
                assertTrue(migrated.migrationsExecuted >= 15, "every script: " + migrated.migrationsExecuted);
            }

            try (Connection c = app.getConnection()) {
                c.setAutoCommit(false);
                CourierQueue queue = CourierQueue.on(c);
                assertTrue(queue.define("invoices", QueueDefinition.DEFAULTS));
                try (Statement insert = c.createStatement()) {
                    insert.execute("INSERT INTO shop_order VALUES ('42')");
                }
                queue.send("invoices", "{\"order\": 42}");
                c.commit();
                assertEquals(
                        "{\"order\": 42}", queue.receive("invoices", 1).get(0).payload());
                c.rollback();
            }

            SchemaMigration.Applied courier =
                    SchemaMigration.migrate(app, "db/migration", SchemaMigration.HISTORY_TABLE);
            assertEquals(Dialect.POSTGRESQL, courier.dialect());
            assertEquals(latestScript(), courier.version(), "Courier finds the schema current");
            assertEquals(1, count(app, "SELECT COUNT(*) FROM courier_message"), "and the message where it was");
        } finally {
            Postgres.superuser("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    private static int latestScript() {
        int latest = 0;
        for (String name : new File("src/main/resources/db/migration/postgresql").list()) {
            if (name.matches("V\\d+__.*\\.sql")) {
                latest = Math.max(latest, Integer.parseInt(name.substring(1, name.indexOf("__"))));
            }
        }
        return latest;
    }

    private static int count(PGSimpleDataSource app, String sql) throws SQLException {
        try (Connection c = app.getConnection();
                Statement select = c.createStatement();
                var rows = select.executeQuery(sql)) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
