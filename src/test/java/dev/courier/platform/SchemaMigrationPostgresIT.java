package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The schema migration on PostgreSQL splits scripts where PostgreSQL does: a function body or a {@code DO} block
 * between dollar quotes holds semicolons and stays one statement. Runs on the PostgreSQL test run only (the
 * database of the run's profile), in a schema of its own that it drops again.
 */
class SchemaMigrationPostgresIT {

    @Test
    void should_keep_dollar_quoted_bodies_whole() throws Exception {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "the PostgreSQL run");
        PGSimpleDataSource admin = database(null);
        try (Connection c = admin.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS migration_probe CASCADE");
            s.execute("CREATE SCHEMA migration_probe");
        }
        try {
            PGSimpleDataSource probe = database("migration_probe");
            assertEquals(
                    1,
                    SchemaMigration.migrate(probe, "db/test-migration", "probe_history")
                            .version());
            try (Connection c = probe.getConnection();
                    Statement s = c.createStatement();
                    ResultSet rows = s.executeQuery("SELECT note FROM probe_dollar ORDER BY id")) {
                rows.next();
                assertEquals("one;", rows.getString(1));
                rows.next();
                assertEquals("many; really", rows.getString(1));
            }
        } finally {
            try (Connection c = admin.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA migration_probe CASCADE");
            }
        }
    }

    private static PGSimpleDataSource database(String schema) {
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setServerNames(new String[] {System.getProperty("courier.db.host", "localhost")});
        database.setPortNumbers(new int[] {Integer.parseInt(System.getProperty("courier.db.port", "5432"))});
        database.setDatabaseName(System.getProperty("courier.db.name", "courier"));
        database.setUser(System.getProperty("courier.db.user", "courier"));
        database.setPassword(dev.courier.testing.Postgres.password());
        if (schema != null) {
            database.setCurrentSchema(schema);
        }
        return database;
    }
}
