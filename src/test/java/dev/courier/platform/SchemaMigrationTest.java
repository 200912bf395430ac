package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.apache.derby.jdbc.EmbeddedDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema migration on a real (embedded Derby) database of its own: a fresh database gets every script of the
 * build, once; an applied script edited afterwards stops the migration; a database the runner before Flyway
 * migrated is taken over at its version; the shipped scripts have the same versions for both dialects.
 */
class SchemaMigrationTest {

    @TempDir
    Path directory;

    @Test
    void should_apply_every_shipped_script_once_to_a_fresh_database() throws Exception {
        EmbeddedDataSource database = database("fresh");
        int newest = versions("derby").size();

        SchemaMigration.Applied applied =
                SchemaMigration.migrate(database, "db/migration", SchemaMigration.HISTORY_TABLE);
        assertEquals(Dialect.DERBY, applied.dialect());
        assertEquals(newest, applied.version());
        assertEquals(newest, count(database, "SELECT COUNT(*) FROM \"courier_schema_history\" WHERE \"type\" = 'SQL'"));
        assertEquals(0, count(database, "SELECT COUNT(*) FROM courier_queue"), "the queue's table exists");

        SchemaMigration.migrate(database, "db/migration", SchemaMigration.HISTORY_TABLE);
        assertEquals(newest, count(database, "SELECT COUNT(*) FROM \"courier_schema_history\" WHERE \"type\" = 'SQL'"));
    }

    @Test
    void should_refuse_a_database_whose_applied_script_was_edited() throws Exception {
        EmbeddedDataSource database = database("edited");
        assertEquals(
                3,
                SchemaMigration.migrate(database, "db/test-migration", "probe_history")
                        .version());

        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> SchemaMigration.migrate(database, "db/test-migration-edited", "probe_history"));
        assertTrue(refused.getMessage().toLowerCase(java.util.Locale.ROOT).contains("checksum"), refused::getMessage);
    }

    @Test
    void should_take_over_a_database_the_earlier_runner_migrated_at_its_version() throws Exception {
        EmbeddedDataSource database = database("legacy");
        // As the runner before Flyway left it after versions 1 and 2 of db/test-migration.
        execute(
                database,
                "CREATE TABLE courier_schema_version (version INT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL,"
                        + " applied_at TIMESTAMP NOT NULL)",
                "INSERT INTO courier_schema_version VALUES (1, 'a', CURRENT_TIMESTAMP)",
                "INSERT INTO courier_schema_version VALUES (2, 'b', CURRENT_TIMESTAMP)",
                "CREATE TABLE probe_a (id INT NOT NULL PRIMARY KEY)",
                "CREATE TABLE probe_b (id INT NOT NULL PRIMARY KEY)",
                "INSERT INTO probe_b (id) VALUES (7)");

        SchemaMigration.Applied applied =
                SchemaMigration.migrate(database, "db/test-migration", SchemaMigration.HISTORY_TABLE);

        assertEquals(3, applied.version());
        assertEquals(0, count(database, "SELECT COUNT(*) FROM probe_c"), "version 3 applied");
        assertEquals(7, count(database, "SELECT id FROM probe_b"), "versions 1 and 2 not run again: the data kept");
        assertEquals(
                1,
                count(
                        database,
                        "SELECT COUNT(*) FROM \"courier_schema_history\" WHERE \"version\" = '2' AND \"type\" = 'BASELINE'"));
        assertEquals(2, count(database, "SELECT COUNT(*) FROM courier_schema_version"), "the old table untouched");
    }

    @Test
    void should_start_every_script_after_a_baseline_in_a_database_with_other_tables() throws Exception {
        EmbeddedDataSource database = database("shared");
        execute(database, "CREATE TABLE application_order (id INT NOT NULL PRIMARY KEY)");

        assertEquals(
                3,
                SchemaMigration.migrate(database, "db/test-migration", "probe_history")
                        .version());
        assertEquals(1, count(database, "SELECT COUNT(*) FROM probe_b"));
    }

    @Test
    void should_fail_rather_than_migrate_nothing_when_no_script_is_found() {
        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> SchemaMigration.migrate(database("empty"), "db/no-such-scripts", "probe_history"));
        assertTrue(refused.getMessage().contains("db/no-such-scripts"), refused::getMessage);
    }

    @Test
    void should_refuse_a_history_table_name_that_is_not_a_plain_name() {
        assertThrows(
                IllegalArgumentException.class,
                () -> SchemaMigration.migrate(database("bad"), "db/test-migration", "history; DROP TABLE x"));
    }

    @Test
    void should_ship_the_same_consecutive_versions_for_every_dialect() throws IOException {
        List<String> derby = versions("derby");
        assertEquals(derby, versions("postgresql"));
        for (int i = 0; i < derby.size(); i++) {
            assertTrue(derby.get(i).startsWith("V" + (i + 1) + "__"), derby.get(i));
        }
    }

    /** The shipped scripts of a dialect, by version. */
    private static List<String> versions(String dialect) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration", dialect))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(".sql"))
                    .sorted(java.util.Comparator.comparingInt(
                            name -> Integer.parseInt(name.substring(1, name.indexOf("__")))))
                    .toList();
        }
    }

    private EmbeddedDataSource database(String name) {
        EmbeddedDataSource database = new EmbeddedDataSource();
        database.setDatabaseName(directory.resolve(name).toString());
        database.setCreateDatabase("create");
        return database;
    }

    private static void execute(EmbeddedDataSource database, String... statements) throws SQLException {
        try (Connection c = database.getConnection();
                Statement statement = c.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static int count(EmbeddedDataSource database, String query) throws SQLException {
        try (Connection c = database.getConnection();
                Statement statement = c.createStatement();
                ResultSet rows = statement.executeQuery(query)) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
