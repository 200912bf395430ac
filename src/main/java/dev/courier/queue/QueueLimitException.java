package dev.courier.queue;

import dev.courier.platform.ProblemException;

/**
 * A configured limit would be exceeded: too many queues (HTTP 409) or too many waiting receivers on one
 * queue, or of one caller on it (HTTP 429). Nothing was changed.
 */
public class QueueLimitException extends ProblemException {

    private static final long serialVersionUID = 1L;

    private QueueLimitException(int status, String title, String detail) {
        super(status, title, detail);
    }

    static QueueLimitException tooManyQueues(int limit) {
        return new QueueLimitException(
                409,
                "Too many queues",
                "at most " + limit + " queues may exist (courier.queue.max-queues); drop one first");
    }

    static QueueLimitException tooManyWaitersOfCaller(QueueName queue, int limit) {
        return new QueueLimitException(
                429,
                "Too many waiting receivers",
                "you already have " + limit + " waiting receivers on queue " + queue
                        + " (courier.queue.max-waiters-per-caller); retry later");
    }

    static QueueLimitException tooManyWaitersOfCallerInAll(int limit) {
        return new QueueLimitException(
                429,
                "Too many waiting receivers",
                "you already have " + limit
                        + " waiting receivers over all queues (courier.queue.max-waiters-per-caller-total); retry later");
    }

    static QueueLimitException tooManyWaiters(QueueName queue, int limit) {
        return new QueueLimitException(
                429,
                "Too many waiting receivers",
                "queue " + queue + " already has " + limit
                        + " waiting receivers (courier.queue.max-waiters); retry later");
    }
}
