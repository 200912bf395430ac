package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.courier.testing.Postgres;
import dev.courier.testing.ProductionDatabaseOnly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/postgres} (run by CI before the tests) leaves no default password: the role Courier connects as has a
 * generated one, kept owner-only, and the old default {@code courier} opens nothing.
 */
@ProductionDatabaseOnly
class DatabasePasswordIT {

    @Test
    void the_role_has_a_generated_password_and_the_old_default_is_refused() throws Exception {
        SQLException refused = assertThrows(SQLException.class, () -> Postgres.as("courier", "courier", "courier"));
        assertEquals("28P01", refused.getSQLState(), refused::toString); // invalid_password
        assertNotEquals("courier", Postgres.password());
        try (Connection c = Postgres.courier();
                ResultSet one = c.createStatement().executeQuery("SELECT current_user")) {
            one.next();
            assertEquals("courier", one.getString(1));
        }
        Path kept = Path.of(System.getProperty("courier.db.secrets.dir", "data/security"));
        for (String file : new String[] {"postgres.properties", "database.xml"}) {
            assertEquals(
                    "rw-------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(kept.resolve(file))),
                    file);
        }
    }
}
