package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** In the container: start-up brought the configured database to the newest schema version, once. */
@ExtendWith(ArquillianExtension.class)
class SchemaMigrationIT {

    @Deployment
    static WebArchive deployment() {
        return CourierDeployment.war().addClass(SchemaMigrationIT.class);
    }

    @Inject
    private SchemaMigration schema;

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Test
    void should_run_on_the_database_the_profile_names() {
        String profile = System.getenv().getOrDefault("COURIER_DB", "derby").toLowerCase(Locale.ROOT);
        assertEquals(profile.equals("postgres") ? Dialect.POSTGRESQL : Dialect.DERBY, schema.dialect());
    }

    @Test
    void should_apply_every_migration_exactly_once() throws Exception {
        // Flyway quotes the names it creates: in Derby they keep their lower case only when quoted. A database
        // taken over from the runner before Flyway starts with a baseline at that runner's version.
        int baseline = 0;
        java.util.List<Integer> versions = new java.util.ArrayList<>();
        try (Connection connection = dataSource.getConnection();
                Statement query = connection.createStatement();
                ResultSet rows = query.executeQuery(
                        "SELECT \"version\", \"type\", \"success\" FROM \"" + SchemaMigration.HISTORY_TABLE + "\"")) {
            while (rows.next()) {
                int version = Integer.parseInt(rows.getString(1));
                assertTrue(rows.getBoolean(3), "version " + version + " succeeded");
                if ("BASELINE".equals(rows.getString(2))) {
                    baseline = version;
                } else {
                    versions.add(version);
                }
            }
        }
        java.util.Collections.sort(versions);
        java.util.List<Integer> expected = new java.util.ArrayList<>();
        for (int v = baseline + 1; v <= schema.version(); v++) {
            expected.add(v);
        }
        assertEquals(expected, versions, "one row per version after the baseline " + baseline);
        assertTrue(schema.version() >= 10, "at the build's newest version: " + schema.version());
    }
}
