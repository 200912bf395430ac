package dev.courier.queue.jdbc;

import java.sql.SQLException;

/**
 * A queue operation refused or failed; {@link #reason()} says which way. Unchecked, so that in a JTA transaction
 * it rolls the transaction back as any runtime exception does; on a plain JDBC connection PostgreSQL has already
 * aborted the transaction (roll it back). Nothing of the refused call is written.
 */
public final class QueueException extends RuntimeException {

    /** What went wrong, with the SQLSTATE the SQL API raises for it and the HTTP status REST answers. */
    public enum Reason {
        /** Bad input ({@code CQ400}, or {@code 22P02}: a payload that is not JSON). */
        INVALID(400),
        /** No such queue ({@code CQ404}). */
        QUEUE_NOT_FOUND(404),
        /** The token is no longer the message's lease: it expired and another receiver took it ({@code CQ409}). */
        STALE_LEASE(409),
        /** The message is gone: already acknowledged ({@code CQ410}). */
        MESSAGE_GONE(410),
        /** Creating a queue would pass {@code courier.queue.max-queues} ({@code CQ4L9}). */
        LIMIT_REACHED(409),
        /** A payload over the configured limit ({@code CQ413}). */
        PAYLOAD_TOO_LARGE(413),
        /** The database failed the call (connection lost, no privilege, ...): see the cause. */
        DATABASE(500);

        private final int status;

        Reason(int status) {
            this.status = status;
        }

        /** The HTTP status Courier's REST API answers for the same fault. */
        public int status() {
            return status;
        }
    }

    private final Reason reason;

    QueueException(Reason reason, String message, SQLException cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** The SQL API's error as what it means. */
    static QueueException of(SQLException e) {
        Reason reason = switch (e.getSQLState() == null ? "" : e.getSQLState()) {
            case "CQ400", "22P02" -> Reason.INVALID;
            case "CQ404" -> Reason.QUEUE_NOT_FOUND;
            case "CQ409" -> Reason.STALE_LEASE;
            case "CQ410" -> Reason.MESSAGE_GONE;
            case "CQ413" -> Reason.PAYLOAD_TOO_LARGE;
            case "CQ4L9" -> Reason.LIMIT_REACHED;
            default -> Reason.DATABASE;
        };
        return new QueueException(reason, e.getMessage(), e);
    }
}
