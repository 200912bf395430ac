package dev.courier.health;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Session;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Ready while the broker answers: opens a connection through the resource adapter and creates and deletes a
 * temporary queue, which takes a round trip to the broker (a pooled handle alone proves nothing). Probed at most
 * once per {@code courier.health.cache} ({@link RecentProbe}).
 */
@Readiness
@ApplicationScoped
public class BrokerReadinessCheck implements HealthCheck {

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

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
        probe = new RecentProbe("broker", "the broker does not answer", cache, registry, executor, () -> {
            try (Connection connection = connectionFactory.createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                session.createTemporaryQueue().delete();
                return true;
            }
        });
    }

    @Override
    public HealthCheckResponse call() {
        return probe.response();
    }
}
