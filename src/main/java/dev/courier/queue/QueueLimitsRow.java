package dev.courier.queue;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Writes this server's queue limits ({@code courier.queue.max-payload-bytes}, {@code idempotency-window},
 * {@code max-receive}, {@code max-batch}, {@code max-page-bytes}, {@code max-queues}) into {@code courier_queue_limits} at start, where
 * the SQL API's functions read them, in every queue database: a send through SQL is held to the same limits as one
 * through REST or Java.
 * Servers of one database should share their configuration; if they do not, the last one started sets the row.
 */
@Singleton
@Startup
public class QueueLimitsRow {

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueSettings settings;

    // Each database's row on its own (autocommit): one transaction over several would be a two-phase commit.
    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void write() {
        for (QueueDatabase database : databases.all()) { // the schema is migrated first
            try (Connection connection = database.connection();
                    PreparedStatement update = connection.prepareStatement("UPDATE courier_queue_limits SET "
                            + "max_payload_bytes = ?, idempotency_window_ms = ?, max_receive = ?, max_batch = ?, "
                            + "max_page_bytes = ?, max_queues = ? WHERE id = 1")) {
                update.setInt(1, settings.maxPayloadBytes);
                update.setLong(2, settings.idempotencyWindow.toMillis());
                update.setInt(3, settings.maxReceive);
                update.setInt(4, settings.maxBatch);
                update.setLong(5, settings.maxPageBytes);
                update.setInt(6, settings.maxQueues);
                update.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "could not write the queue limits for the SQL API in database " + database.name(), e);
            }
        }
    }
}
