package dev.courier.queue;

import dev.courier.access.Caller;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * How many receives each caller has waiting in this server, on each queue under
 * {@code courier.queue.max-waiters-per-caller}, so that one caller cannot take every waiting place of a queue
 * ({@code courier.queue.max-waiters}) from the others, and over all queues under
 * {@code courier.queue.max-waiters-per-caller-total}, so that it cannot hold a queue's worth on every queue.
 * Trusted callers (admins, application code in the server) are not counted, as grants do not narrow them. A key
 * lives only while its caller waits.
 */
@ApplicationScoped
class CallerWaits {

    private record Key(QueueName queue, String caller) {}

    private final ConcurrentMap<Key, Integer> waiting = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Integer> totals = new ConcurrentHashMap<>();

    /**
     * Counts a waiting receive of {@code caller}. @return what ends it, to run exactly once
     * @throws QueueLimitException 429 when the caller already has {@code limit} waiting on the queue, or
     *         {@code total} over all queues
     */
    Runnable enter(QueueName queue, Caller caller, int limit, int total) {
        if (caller.trusted()) {
            return () -> {};
        }
        String name = caller.name();
        // A refusal thrown inside compute leaves the map unchanged.
        totals.compute(name, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= total) {
                throw QueueLimitException.tooManyWaitersOfCallerInAll(total);
            }
            return now + 1;
        });
        Runnable leaveTotal = () -> totals.computeIfPresent(name, (k, n) -> n == 1 ? null : n - 1);
        Key key = new Key(queue, name);
        try {
            waiting.compute(key, (k, n) -> {
                int now = n == null ? 0 : n;
                if (now >= limit) {
                    throw QueueLimitException.tooManyWaitersOfCaller(queue, limit);
                }
                return now + 1;
            });
        } catch (RuntimeException e) {
            leaveTotal.run();
            throw e;
        }
        return () -> {
            waiting.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
            leaveTotal.run();
        };
    }

    /** Keys held now: callers with a receive waiting, per queue. */
    int keys() {
        return waiting.size();
    }
}
