package dev.courier.queue;

import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Dead messages: those out of attempts. They keep their payload, last error and the history of their failed
 * attempts until replayed (back to live, attempts counted afresh) or purged, or until they are older than
 * {@code courier.queue.dead-retention}. Each call joins the caller's transaction ({@code REQUIRED}).
 */
@Stateless
public class DeadLetters {

    @Inject
    private QueueMeters meters;

    /** Ids a replay or purge of a whole queue reads at a time. */
    private static final int PAGE = 1000;

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueStore queues;

    @Inject
    private MessageStore store;

    @Inject
    private QueueMessages messages;

    @Inject
    private QueueSettings settings;

    /** A page of the queue's dead messages, each with its history. @throws QueueNotFoundException 404 */
    public MessagePage list(QueueName queue, String after, int limit) {
        return messages.query(queue, MessageFilter.in(MessageState.DEAD), after, limit);
    }

    /** One dead message with its history, if it is dead. */
    public Optional<MessageView> get(QueueName queue, String id) {
        return messages.get(queue, id).filter(m -> m.state() == MessageState.DEAD);
    }

    /**
     * Makes dead messages live again: deliverable from now, attempts counted afresh, history kept. With a rate,
     * the i-th message (in id order) becomes deliverable i / rate seconds from now, so replaying many does not
     * flood receivers.
     *
     * @param ids the messages to replay; empty for every dead message of the queue
     * @param ratePerSecond at most this many per second become deliverable; {@code null} for all at once
     * @param editedPayload a replacement payload, only when replaying exactly one message; else {@code null}
     * @return how many messages were replayed (ids that are not dead messages of the queue are skipped)
     * @throws PayloadTooLargeException 413 for an edited payload over {@code courier.queue.max-payload-bytes}
     */
    public int replay(QueueName queue, List<String> ids, Double ratePerSecond, Payload editedPayload) {
        if (ratePerSecond != null && !(ratePerSecond > 0)) {
            throw ProblemException.invalid("ratePerSecond must be greater than 0");
        }
        if (editedPayload != null && ids.size() != 1) {
            throw ProblemException.invalid("an edited payload replays exactly one message: give one id");
        }
        if (editedPayload != null && editedPayload.size() > settings.maxPayloadBytes) {
            throw new PayloadTooLargeException(editedPayload.size(), settings.maxPayloadBytes);
        }
        try (Connection connection = databases.of(queue).connection()) {
            Instant now = queues.requireQueue(connection, queue).now();
            int replayed = 0;
            // In id order, a page at a time: two replays or purges lock rows in one order, and replaying a whole
            // queue never holds every id in memory.
            List<String> page = ids.isEmpty()
                    ? store.deadIds(connection, queue, null, PAGE)
                    : ids.stream().distinct().sorted().toList();
            while (!page.isEmpty()) {
                for (String id : page) {
                    Duration offset = ratePerSecond == null
                            ? Duration.ZERO
                            : Duration.ofNanos((long) (replayed * 1_000_000_000L / ratePerSecond));
                    replayed += store.revive(connection, queue, id, now.plus(offset));
                }
                page = ids.isEmpty() ? store.deadIds(connection, queue, page.get(page.size() - 1), PAGE) : List.of();
            }
            if (editedPayload != null && replayed == 1) {
                store.replacePayload(connection, ids.get(0), editedPayload);
            }
            meters.onCommit(QueueMeters.Event.REPLAYED, queue, replayed);
            return replayed;
        } catch (SQLException e) {
            throw new IllegalStateException("replay on " + queue + " failed", e);
        }
    }

    /**
     * Deletes dead messages for good.
     *
     * @param ids the messages to purge; empty for every dead message of the queue
     * @return how many were purged
     */
    public int purge(QueueName queue, List<String> ids) {
        try (Connection connection = databases.of(queue).connection()) {
            queues.requireQueue(connection, queue);
            if (!ids.isEmpty()) {
                // Sorted: two purges lock rows in one order, never deadlock.
                return store.deleteDead(
                        connection, queue, ids.stream().distinct().sorted().toList());
            }
            int purged = 0;
            for (List<String> page = store.deadIds(connection, queue, null, PAGE);
                    !page.isEmpty();
                    page = store.deadIds(connection, queue, page.get(page.size() - 1), PAGE)) {
                purged += store.deleteDead(connection, queue, page);
            }
            return purged;
        } catch (SQLException e) {
            throw new IllegalStateException("purge on " + queue + " failed", e);
        }
    }
}
