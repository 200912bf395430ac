package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class MigrationTest {

    @Test
    void should_split_statements_at_line_ending_semicolons_and_skip_comments() {
        Migration migration = Migration.parse("V3__add_things.sql", """
                -- a comment; with a semicolon
                CREATE TABLE a (
                    id INT NOT NULL
                );

                CREATE INDEX a_id ON a (id);
                """);

        assertEquals(3, migration.version());
        assertEquals("add things", migration.description());
        assertEquals(
                List.of("CREATE TABLE a (\n    id INT NOT NULL\n)", "CREATE INDEX a_id ON a (id)"),
                migration.statements());
    }

    @Test
    void should_reject_a_file_name_without_version() {
        assertThrows(IllegalArgumentException.class, () -> Migration.parse("add_things.sql", "SELECT 1;"));
        assertThrows(IllegalArgumentException.class, () -> Migration.parse("V0__zero.sql", "SELECT 1;"));
    }

    @Test
    void should_reject_a_statement_without_closing_semicolon() {
        assertThrows(IllegalArgumentException.class, () -> Migration.parse("V1__x.sql", "CREATE TABLE a (id INT)"));
    }

    @Test
    void should_ship_the_same_consecutive_versions_for_every_dialect() {
        List<Migration> derby = SchemaMigration.load(Dialect.DERBY);
        List<Migration> postgres = SchemaMigration.load(Dialect.POSTGRESQL);

        assertEquals(
                derby.stream().map(Migration::version).toList(),
                postgres.stream().map(Migration::version).toList());
        for (int i = 0; i < derby.size(); i++) {
            assertEquals(i + 1, derby.get(i).version());
            assertEquals(derby.get(i).description(), postgres.get(i).description());
        }
    }
}
