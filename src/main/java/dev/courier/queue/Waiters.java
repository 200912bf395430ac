package dev.courier.queue;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Receivers waiting for messages on a queue, in this server. A committed send wakes them at once; messages sent
 * by other servers (or becoming due) are found by the waiters' own polling. Bounded per queue.
 */
@ApplicationScoped
class Waiters {

    private final ConcurrentMap<QueueName, Signal> signals = new ConcurrentHashMap<>();

    /** Registers a waiter. @throws QueueLimitException when {@code limit} receivers already wait on the queue */
    Signal enter(QueueName queue, int limit) {
        Signal signal = signals.computeIfAbsent(queue, q -> new Signal());
        if (signal.waiting.incrementAndGet() > limit) {
            signal.waiting.decrementAndGet();
            throw QueueLimitException.tooManyWaiters(queue, limit);
        }
        return signal;
    }

    /** How many receivers wait on {@code queue} in this server now. */
    int waiting(QueueName queue) {
        Signal signal = signals.get(queue);
        return signal == null ? 0 : signal.waiting.get();
    }

    /** Wakes the receivers waiting on {@code queue}; called after a send to it committed. */
    void wake(QueueName queue) {
        Signal signal = signals.get(queue);
        if (signal != null) {
            signal.bump();
        }
    }

    /**
     * A queue's wake-up signal: a generation number that every committed send increments, and the callbacks of
     * waiters to run when it does. Waiters hold no thread while they wait.
     */
    static final class Signal {

        private final AtomicInteger waiting = new AtomicInteger();
        private final List<Runnable> listeners = new ArrayList<>();
        private long generation;

        synchronized long generation() {
            return generation;
        }

        private void bump() {
            List<Runnable> woken;
            synchronized (this) {
                generation++;
                woken = new ArrayList<>(listeners);
                listeners.clear();
            }
            woken.forEach(Runnable::run);
        }

        /** Runs {@code listener} once the generation moves past {@code seen} (at once if it already has). */
        void onChange(long seen, Runnable listener) {
            synchronized (this) {
                if (generation == seen) {
                    listeners.add(listener);
                    return;
                }
            }
            listener.run();
        }

        synchronized void forget(Runnable listener) {
            listeners.remove(listener);
        }

        void leave() {
            waiting.decrementAndGet();
        }
    }
}
