package dev.courier.queue;

import static dev.courier.queue.MessageStore.timestamp;

import dev.courier.platform.Columns;
import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Messages are rows: this reads them, a page at a time, by state, delivery time, attempts or key. Reads see
 * committed data as of the call ({@code REQUIRED}, read committed). The table layout is in the README, for
 * joining messages with business tables in plain SQL.
 */
@Stateless
public class QueueMessages {

    public static final int MAX_PAGE = 500;

    @Inject
    private MessageStore store;

    /** One message with its failure history. @throws QueueNotFoundException 404 when absent from this queue */
    public Optional<MessageView> get(QueueName queue, String id) {
        try (Connection connection = store.connection()) {
            Instant now = store.requireQueue(connection, queue).now();
            Optional<StoredMessage> message = store.find(connection, id).filter(m -> m.queue().equals(queue));
            if (message.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(MessageView.of(message.get(), now));
        } catch (SQLException e) {
            throw new IllegalStateException("reading message " + id + " failed", e);
        }
    }

    /** The queue a message is in, if it exists (a message acknowledged or purged exists no more). */
    public Optional<QueueName> queueOf(String id) {
        try (Connection connection = store.connection()) {
            return store.find(connection, id).map(StoredMessage::queue);
        } catch (SQLException e) {
            throw new IllegalStateException("reading message " + id + " failed", e);
        }
    }

    /**
     * A page of the queue's messages matching {@code filter}, after the cursor {@code after} (null: from the start).
     *
     * @throws QueueNotFoundException 404 for an unknown queue
     * @throws ProblemException 400 for a limit outside 1..500
     */
    public MessagePage query(QueueName queue, MessageFilter filter, String after, int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw ProblemException.invalid("limit must be between 1 and " + MAX_PAGE);
        }
        try (Connection connection = store.connection()) {
            Instant now = store.requireQueue(connection, queue).now();
            return page(connection, queue, filter, after, limit, now);
        } catch (SQLException e) {
            throw new IllegalStateException("querying queue " + queue + " failed", e);
        }
    }

    private static MessagePage page(Connection connection, QueueName queue, MessageFilter filter, String after,
            int limit, Instant now) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + MessageStore.COLUMNS + " FROM courier_message WHERE queue = ?");
        List<Object> params = new ArrayList<>();
        params.add(queue.value());
        if (filter.state() != null) {
            // Fixed fragments only: the filter's values are bound, never spliced into the SQL.
            switch (filter.state()) {
                case DEAD -> sql.append(" AND state = 'DEAD'");
                case LEASED -> sql.append(" AND state = 'READY' AND lease_expires_at > ?");
                case READY -> sql.append(" AND state = 'READY' AND deliver_at <= ?");
                case SCHEDULED -> sql.append(" AND state = 'READY' AND deliver_at > ?"
                        + " AND (lease_expires_at IS NULL OR lease_expires_at <= ?)");
                default -> throw new IllegalStateException("unexpected state " + filter.state());
            }
            switch (filter.state()) {
                case LEASED, READY -> params.add(timestamp(now));
                case SCHEDULED -> {
                    params.add(timestamp(now));
                    params.add(timestamp(now));
                }
                default -> { }
            }
        }
        if (filter.deliverFrom() != null) {
            sql.append(" AND deliver_at >= ?");
            params.add(timestamp(filter.deliverFrom()));
        }
        if (filter.deliverTo() != null) {
            sql.append(" AND deliver_at < ?");
            params.add(timestamp(filter.deliverTo()));
        }
        if (filter.minAttempts() != null) {
            sql.append(" AND attempt >= ?");
            params.add(filter.minAttempts());
        }
        if (filter.key() != null) {
            sql.append(" AND idempotency_key = ?");
            params.add(filter.key());
        }
        if (after != null) {
            sql.append(" AND id > ?");
            params.add(after);
        }
        sql.append(" ORDER BY id");
        List<MessageView> messages = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < params.size(); i++) {
                if (params.get(i) instanceof java.sql.Timestamp time) {
                    select.setTimestamp(i + 1, time, Columns.utc());
                } else {
                    select.setObject(i + 1, params.get(i));
                }
            }
            select.setMaxRows(limit + 1);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next() && messages.size() <= limit) {
                    messages.add(MessageView.of(MessageStore.stored(rows), now));
                }
            }
        }
        Optional<String> next = Optional.empty();
        if (messages.size() > limit) {
            messages.remove(limit);
            next = Optional.of(messages.get(limit - 1).id());
        }
        return new MessagePage(messages, next);
    }
}
