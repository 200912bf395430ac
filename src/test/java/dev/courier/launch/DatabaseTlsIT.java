package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import dev.courier.testing.Postgres;
import dev.courier.testing.ProductionDatabaseOnly;
import dev.courier.testing.UntrustedCa;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Courier talks to PostgreSQL over TLS checked against the CA {@code bin/postgres} made ({@code sslmode=verify-full}):
 * every session of Courier's pool is encrypted, and a server whose certificate another CA signed is refused.
 */
@ProductionDatabaseOnly
@ExtendWith(ArquillianExtension.class)
class DatabaseTlsIT {

    private static final Path CA =
            Path.of(System.getProperty("courier.db.secrets.dir", "data/security"), "local-ca.pem");

    @TempDir
    Path dir;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void courier_connects_over_tls_checked_against_its_ca() throws Exception {
        assertEquals(200, Http.server().get("api/queues").status()); // the pool holds a session now
        try (Connection c = Postgres.courier();
                ResultSet sessions = c.createStatement()
                        .executeQuery("SELECT count(*), count(*) FILTER (WHERE s.ssl) FROM pg_stat_activity a"
                                + " JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = 'courier'")) {
            sessions.next();
            assertTrue(sessions.getInt(1) > 0, "Courier's sessions are named 'courier'");
            assertEquals(sessions.getInt(1), sessions.getInt(2), "every one of Courier's sessions is over TLS");
        }
        try (Connection checked = connect(CA);
                ResultSet ssl = checked.createStatement()
                        .executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            ssl.next();
            assertTrue(ssl.getBoolean(1));
        }
    }

    @Test
    void a_certificate_another_ca_signed_is_refused() throws Exception {
        Path other = UntrustedCa.in(dir);
        SQLException refused =
                assertThrows(SQLException.class, () -> connect(other).close());
        assertTrue(
                String.valueOf(refused.getMessage()).toLowerCase().contains("ssl")
                        || String.valueOf(refused.getCause()).contains("SSL"),
                refused::toString);
    }

    private static Connection connect(Path ca) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://localhost:" + System.getProperty("courier.db.port", "5432")
                        + "/courier?sslmode=verify-full&sslrootcert=" + ca.toAbsolutePath(),
                System.getProperty("courier.db.user", "courier"),
                Postgres.password());
    }
}
