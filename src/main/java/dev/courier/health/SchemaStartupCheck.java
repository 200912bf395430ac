package dev.courier.health;

import dev.courier.platform.SchemaMigration;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Startup;

/** Started once the schema migration has brought the database to the version this build expects. */
@Startup
@ApplicationScoped
public class SchemaStartupCheck implements HealthCheck {

    @Inject
    private SchemaMigration schema;

    @Override
    public HealthCheckResponse call() {
        int version = schema.version();
        return HealthCheckResponse.builder()
                .name("schema")
                .status(version > 0)
                .withData("version", version)
                .build();
    }
}
