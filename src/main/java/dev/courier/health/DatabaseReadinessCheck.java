package dev.courier.health;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready while a connection of {@code jdbc/courier} answers a validation round trip within the timeout. */
@Readiness
@ApplicationScoped
public class DatabaseReadinessCheck implements HealthCheck {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    @ConfigProperty(name = "courier.health.timeout-seconds", defaultValue = "3")
    int timeoutSeconds;

    @Override
    public HealthCheckResponse call() {
        try (Connection connection = dataSource.getConnection()) {
            boolean valid = connection.isValid(timeoutSeconds);
            return HealthCheckResponse.builder()
                    .name("database")
                    .status(valid)
                    .withData("product", connection.getMetaData().getDatabaseProductName())
                    .build();
        } catch (SQLException | RuntimeException e) {
            return HealthCheckResponse.builder()
                    .name("database")
                    .down()
                    .withData("error", String.valueOf(e.getMessage()))
                    .build();
        }
    }
}
