package dev.courier.health;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while the broker answers: opens a connection through the resource adapter and creates and deletes a
 * temporary queue, which takes a round trip to the broker (a pooled handle alone proves nothing).
 */
@Readiness
@ApplicationScoped
public class BrokerReadinessCheck implements HealthCheck {

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Override
    public HealthCheckResponse call() {
        try (Connection connection = connectionFactory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue queue = session.createTemporaryQueue();
            queue.delete();
            return HealthCheckResponse.named("broker").up().build();
        } catch (JMSException | RuntimeException e) {
            return HealthCheckResponse.builder()
                    .name("broker")
                    .down()
                    .withData("error", String.valueOf(e.getMessage()))
                    .build();
        }
    }
}
