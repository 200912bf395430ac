package dev.courier.testing;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The upstream application's business: placing an order writes the order and sends OrderPlaced, in one transaction. */
@Stateless
public class Orders {

    /** Where a held order waits: before writing its barrier row, or after it, before commit. */
    public enum Hold {
        NONE,
        BEFORE_BARRIER,
        BEFORE_COMMIT
    }

    /** Latch a held order waits on; the test releases it. */
    public static volatile CountDownLatch release = new CountDownLatch(0);
    /** Counted down when a held order reached its hold point; carries the message id. */
    public static volatile CountDownLatch reached = new CountDownLatch(0);

    public static volatile String heldMessageId;

    @Inject
    private Apps apps;

    /**
     * Places an order. @param fail throw after sending, so the transaction rolls back
     * @return order id and message id, "orderId messageId"
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public String place(
            String producer, String topic, boolean fail, Hold hold, double checkBackSeconds, boolean async) {
        String order = UUID.randomUUID().toString();
        String message;
        if (hold == Hold.BEFORE_BARRIER) {
            // Prepare ourselves so that the test can check back before the barrier row exists.
            message = apps.courier()
                    .prepare(
                            topic,
                            producer,
                            "{\"order\":\"" + order + "\"}",
                            java.util.Map.of(),
                            java.time.Duration.ofMillis(Math.round(checkBackSeconds * 1000)));
            heldMessageId = message;
            reached.countDown();
            await();
            barrier(message);
        } else {
            message = (async ? apps.asyncProducer(producer) : apps.producer(producer))
                    .send(
                            topic,
                            "{\"order\":\"" + order + "\"}",
                            java.util.Map.of(),
                            java.time.Duration.ofMillis(Math.round(checkBackSeconds * 1000)));
        }
        insertOrder(order, message);
        if (hold == Hold.BEFORE_COMMIT) {
            heldMessageId = message;
            reached.countDown();
            await();
        }
        if (fail) {
            throw new IllegalStateException("the order failed after sending (test)");
        }
        return order + " " + message;
    }

    private void barrier(String message) {
        // What ReliableProducer.send does after its prepare, done by hand to hold between the two.
        try (Connection c = apps.dataSource().getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO courier_barrier (message_id, outcome, created_at) VALUES (?, 'COMMITTED', CURRENT_TIMESTAMP)")) {
            insert.setString(1, message);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("the barrier row cannot be written: " + e.getMessage(), e);
        }
    }

    private void insertOrder(String order, String message) {
        try (Connection c = apps.dataSource().getConnection();
                PreparedStatement insert =
                        c.prepareStatement("INSERT INTO test_order (id, message_id) VALUES (?, ?)")) {
            insert.setString(1, order);
            insert.setString(2, message);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await() {
        try {
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the held order was never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Orders whose message is {@code messageId}. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public int count(String messageId) {
        return messageId == null
                ? Rows.count(apps.dataSource(), "SELECT COUNT(*) FROM test_order")
                : Rows.count(apps.dataSource(), "SELECT COUNT(*) FROM test_order WHERE message_id = ?", messageId);
    }

    /** A business row of a downstream application per message and subscriber. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public int effects(String messageId, String subscriber) {
        return Rows.count(
                apps.dataSource(),
                "SELECT COUNT(*) FROM test_effect WHERE message_id = ? AND subscriber = ?",
                messageId,
                subscriber);
    }

    /** Counting helper. */
    static final class Rows {
        private Rows() {}

        static int count(javax.sql.DataSource dataSource, String sql, String... args) {
            try (Connection c = dataSource.getConnection();
                    PreparedStatement select = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    select.setString(i + 1, args[i]);
                }
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getInt(1);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
