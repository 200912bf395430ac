package dev.courier.testing.queueapp;

import dev.courier.queue.jdbc.CourierQueue;
import dev.courier.queue.jdbc.Received;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** The business: each method one JTA transaction over the application's rows and the queue's. */
@ApplicationScoped
@Transactional
public class OrderDesk {

    @Resource(lookup = "jdbc/courier")
    private DataSource orders;

    @Inject
    private CourierQueue queue;

    /** Writes an order and sends its message; {@code fail}: then fails, and neither may remain. */
    public String place(String queueName, boolean fail) {
        String id = UUID.randomUUID().toString();
        write("INSERT INTO lib_order (id) VALUES (?)", id);
        queue.send(queueName, "{\"order\": \"" + id + "\"}");
        if (fail) {
            throw new IllegalStateException("refused after writing order " + id);
        }
        return id;
    }

    /**
     * Takes one message, records its effect and acknowledges it; {@code fail}: then fails, so the effect and the
     * acknowledgement roll back together. @return the message's id, or null when none was deliverable
     */
    public String work(String queueName, Duration lease, boolean fail) {
        List<Received> received = queue.receive(queueName, 1, lease);
        if (received.isEmpty()) {
            return null;
        }
        Received message = received.get(0);
        write("INSERT INTO lib_effect (message_id) VALUES (?)", message.id());
        queue.ack(message.leaseToken());
        if (fail) {
            throw new IllegalStateException("refused after acknowledging " + message.id());
        }
        return message.id();
    }

    /** Leases one message in a transaction of its own. @return "id token attempt" */
    public String lease(String queueName, Duration lease) {
        Received message = queue.receive(queueName, 1, lease).get(0);
        return message.id() + " " + message.leaseToken() + " " + message.attempt();
    }

    /**
     * Records a message's effect and acknowledges it under {@code token}; {@code fail}: then fails, so both roll
     * back. A second acknowledgement with the same token must take its effect back too.
     */
    public void complete(String messageId, String token, boolean fail) {
        write("INSERT INTO lib_effect (message_id) VALUES (?)", messageId);
        queue.ack(token);
        if (fail) {
            throw new IllegalStateException("refused after acknowledging " + messageId);
        }
    }

    private void write(String sql, String id) {
        try (Connection connection = orders.getConnection();
                PreparedStatement insert = connection.prepareStatement(sql)) {
            insert.setString(1, id);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
