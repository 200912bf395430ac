package dev.courier.queue;

import dev.courier.platform.ProblemException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Why an operation by lease token (acknowledge, renew, release) found no row to change, checked in this order:
 * the names are those of the SQL function {@code courier.lease_fault}, which decides it on PostgreSQL.
 */
enum LeaseFault {
    /** The operation named a queue that does not exist: 404. */
    QUEUE_NOT_FOUND,
    /** The message is gone, acknowledged or never there: 410. */
    GONE,
    /** The message is another queue's than the one the operation named: 404. */
    ELSEWHERE,
    /** Another lease, or none, replaced this one: 409. */
    STALE;

    /** A message whose lease was lost, and why. */
    record Lost(String messageId, LeaseFault fault) {

        /** The exception the operation fails with, through {@code queue} (null: none named). */
        RuntimeException exception(QueueName queue) {
            return switch (fault) {
                case QUEUE_NOT_FOUND -> new QueueNotFoundException(queue);
                case GONE -> new MessageGoneException(messageId);
                case ELSEWHERE ->
                    new ProblemException(
                            404, "Message not found", "there is no message '" + messageId + "' in queue " + queue);
                case STALE -> StaleLeaseException.of(messageId);
            };
        }
    }

    /** Decides it in Java, as {@code courier.lease_fault} does (Derby, which has no such function). */
    static Lost of(Connection connection, QueueName queue, String messageId) throws SQLException {
        if (queue != null) {
            try (PreparedStatement select = connection.prepareStatement("SELECT 1 FROM courier_queue WHERE name = ?")) {
                select.setString(1, queue.value());
                try (ResultSet rows = select.executeQuery()) {
                    if (!rows.next()) {
                        return new Lost(messageId, QUEUE_NOT_FOUND);
                    }
                }
            }
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT queue FROM courier_message WHERE id = ?")) {
            select.setString(1, messageId);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return new Lost(messageId, GONE);
                }
                return new Lost(
                        messageId, queue != null && !queue.value().equals(rows.getString(1)) ? ELSEWHERE : STALE);
            }
        }
    }
}
