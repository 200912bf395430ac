package dev.courier.health;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.Duration;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Ready while a connection of {@code jdbc/courier} answers a validation round trip within the timeout. Probed at
 * most once per {@code courier.health.cache} ({@link RecentProbe}).
 */
@Readiness
@ApplicationScoped
public class DatabaseReadinessCheck implements HealthCheck {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    @ConfigProperty(name = "courier.health.timeout-seconds", defaultValue = "3")
    int timeoutSeconds;

    @Inject
    @ConfigProperty(name = "courier.health.cache", defaultValue = "PT2S")
    Duration cache;

    @Inject
    private MetricRegistry registry;

    /** Runs the probe: a readiness request never waits for it. */
    @Resource
    private ManagedExecutorService executor;

    private RecentProbe probe;

    @PostConstruct
    void init() {
        probe = new RecentProbe("database", "the database does not answer", cache, registry, executor, () -> {
            try (Connection connection = dataSource.getConnection()) {
                return connection.isValid(timeoutSeconds);
            }
        });
    }

    @Override
    public HealthCheckResponse call() {
        return probe.response();
    }
}
