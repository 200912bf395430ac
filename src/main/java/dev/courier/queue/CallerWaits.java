package dev.courier.queue;

import dev.courier.access.Caller;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * How many receives each caller has waiting on each queue in this server, held under
 * {@code courier.queue.max-waiters-per-caller}, so that one caller cannot take every waiting place of a queue
 * ({@code courier.queue.max-waiters}) from the others. Trusted callers (admins, application code in the server)
 * are not counted, as grants do not narrow them. A key lives only while its caller waits.
 */
@ApplicationScoped
class CallerWaits {

    private record Key(QueueName queue, String caller) {}

    private final ConcurrentMap<Key, Integer> waiting = new ConcurrentHashMap<>();

    /**
     * Counts a waiting receive of {@code caller}. @return what ends it, to run exactly once
     * @throws QueueLimitException 429 when the caller already has {@code limit} waiting on the queue
     */
    Runnable enter(QueueName queue, Caller caller, int limit) {
        if (caller.trusted()) {
            return () -> {};
        }
        Key key = new Key(queue, caller.name());
        // A refusal thrown inside compute leaves the map unchanged.
        waiting.compute(key, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= limit) {
                throw QueueLimitException.tooManyWaitersOfCaller(queue, limit);
            }
            return now + 1;
        });
        return () -> waiting.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
    }

    /** Keys held now: callers with a receive waiting, per queue. */
    int keys() {
        return waiting.size();
    }
}
