package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        int newest = SchemaMigration.load(schema.dialect()).size();
        assertEquals(newest, schema.version());
        try (Connection connection = dataSource.getConnection();
                Statement query = connection.createStatement();
                ResultSet rows = query.executeQuery("SELECT COUNT(*), COUNT(DISTINCT version), MAX(version) FROM "
                        + SchemaMigration.VERSION_TABLE)) {
            rows.next();
            assertEquals(newest, rows.getInt(1), "one row per version");
            assertEquals(newest, rows.getInt(2));
            assertEquals(newest, rows.getInt(3));
        }
    }
}
