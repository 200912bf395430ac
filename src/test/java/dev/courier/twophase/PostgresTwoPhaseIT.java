package dev.courier.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * On PostgreSQL, the XA probe really commits in two phases: the server executes {@code PREPARE TRANSACTION}
 * and {@code COMMIT PREPARED} (counted by pg_stat_statements), and leaves no prepared transaction behind.
 * Runs only with {@code -Dcourier.db=postgres}; needs pg_stat_statements (bin/postgres sets it up).
 */
@ExtendWith(ArquillianExtension.class)
class PostgresTwoPhaseIT {

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_prepare_then_commit_prepared_on_postgres() throws SQLException {
        assumeTrue("postgres".equals(System.getProperty("courier.db")), "PostgreSQL profile only");
        try (Connection db = connect()) {
            long prepares = calls(db, "PREPARE TRANSACTION%");
            long commits = calls(db, "COMMIT PREPARED%");

            Http.Response created = http.post("api/twophase/probes", "{\"body\": \"2pc-" + UUID.randomUUID() + "\"}");
            assertEquals(201, created.status(), created::toString);
            String id = created.json().getString("id");
            Eventually.until(
                    "receipt of " + id,
                    Duration.ofSeconds(30),
                    () -> !http.get("api/twophase/probes/" + id).json().isNull("receipt"));

            // Two XA transactions ran: the probe's (row + send) and the listener's (receive + receipt).
            assertTrue(calls(db, "PREPARE TRANSACTION%") >= prepares + 2, "PREPARE TRANSACTION was executed");
            assertTrue(calls(db, "COMMIT PREPARED%") >= commits + 2, "COMMIT PREPARED was executed");
            assertEquals(
                    0,
                    count(db, "SELECT COUNT(*) FROM pg_prepared_xacts WHERE database = current_database()"),
                    "no prepared transaction is left behind");
        }
    }

    private static Connection connect() throws SQLException {
        String url = "jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":"
                + System.getProperty("courier.db.port", "5432") + "/"
                + System.getProperty("courier.db.name", "courier");
        return DriverManager.getConnection(
                url, System.getProperty("courier.db.user", "courier"), dev.courier.testing.Postgres.password());
    }

    private static long calls(Connection db, String pattern) throws SQLException {
        return count(db, "SELECT COALESCE(SUM(calls), 0) FROM pg_stat_statements WHERE query LIKE '" + pattern + "'");
    }

    private static long count(Connection db, String sql) throws SQLException {
        try (Statement statement = db.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
