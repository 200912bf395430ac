package dev.courier.queue;

import dev.courier.access.Action;
import dev.courier.access.Caller;
import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.Connection;
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
    private QueueDatabases databases;

    @Inject
    private QueueStore queues;

    @Inject
    private MessageStore store;

    @Inject
    private QueueSettings settings;

    /** One message with its failure history. @throws QueueNotFoundException 404 when absent from this queue */
    public Optional<MessageView> get(QueueName queue, String id) {
        return get(queue, id, Caller.TRUSTED);
    }

    /**
     * {@link #get(QueueName, String)} on behalf of {@code caller}: reading a message is consuming it as far as
     * grants go (its payload is the consumers' business).
     *
     * @throws dev.courier.access.NotGrantedException 403 when the queue's grants do not let the caller consume
     */
    public Optional<MessageView> get(QueueName queue, String id, Caller caller) {
        try (Connection connection = databases.of(queue).connection()) {
            Instant now = queues.requireQueue(connection, queue, caller, Action.CONSUME)
                    .now();
            Optional<StoredMessage> message =
                    StoredMessage.find(connection, id).filter(m -> m.queue().equals(queue));
            if (message.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(MessageView.of(message.get(), now));
        } catch (SQLException e) {
            throw new IllegalStateException("reading message " + id + " failed", e);
        }
    }

    /**
     * A page of the queue's messages matching {@code filter}, after the cursor {@code after} (null: from the start):
     * up to {@code limit} messages, fewer when their payloads reach {@code courier.queue.max-page-bytes} (4 MiB;
     * the page then has a next cursor like a full one).
     *
     * @throws QueueNotFoundException 404 for an unknown queue
     * @throws ProblemException 400 for a limit outside 1..500
     */
    public MessagePage query(QueueName queue, MessageFilter filter, String after, int limit) {
        return query(queue, filter, after, limit, Caller.TRUSTED);
    }

    /** {@link #query(QueueName, MessageFilter, String, int)} on behalf of {@code caller}, as {@link #get} is. */
    public MessagePage query(QueueName queue, MessageFilter filter, String after, int limit, Caller caller) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw ProblemException.invalid("limit must be between 1 and " + MAX_PAGE);
        }
        try (Connection connection = databases.of(queue).connection()) {
            Instant now = queues.requireQueue(connection, queue, caller, Action.CONSUME)
                    .now();
            MessageStore.Page page =
                    store.page(connection, queue, filter, after, limit + 1, now, settings.maxPageBytes);
            List<MessageView> messages = new ArrayList<>();
            for (StoredMessage message : page.rows()) {
                messages.add(MessageView.of(message, now));
            }
            Optional<String> next = Optional.empty();
            if (messages.size() > limit) {
                messages.remove(limit);
                next = Optional.of(messages.get(limit - 1).id());
            } else if (page.cut()) {
                next = Optional.of(messages.get(messages.size() - 1).id()); // the byte budget ended the page
            }
            return new MessagePage(messages, next);
        } catch (SQLException e) {
            throw new IllegalStateException("querying queue " + queue + " failed", e);
        }
    }
}
