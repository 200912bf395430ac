package dev.courier.queue;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Receivers waiting for messages on a queue, in this server. A committed send wakes them at once; messages sent
 * by other servers (or becoming due) are found by the waiters' own polling. Bounded per queue. A queue has a
 * signal only while receivers wait on it: the last one to leave removes it, so names asked for once (existing
 * or not) leave nothing behind.
 */
@ApplicationScoped
class Waiters {

    private final ConcurrentMap<QueueName, Signal> signals = new ConcurrentHashMap<>();

    /**
     * Registers a waiter; it must {@link Signal#leave() leave} exactly once.
     *
     * @throws QueueLimitException when {@code limit} receivers already wait on the queue
     */
    Signal enter(QueueName queue, int limit) {
        // Counting inside compute, as leave does, keeps a waiter from joining a signal that is being removed.
        // A refusal thrown from compute leaves the map unchanged, so it creates no signal either.
        return signals.compute(queue, (name, signal) -> {
            Signal joined = signal == null ? new Signal(name) : signal;
            if (joined.waiting.get() >= limit) {
                throw QueueLimitException.tooManyWaiters(name, limit);
            }
            joined.waiting.incrementAndGet();
            return joined;
        });
    }

    /** How many receivers wait on {@code queue} in this server now. */
    int waiting(QueueName queue) {
        Signal signal = signals.get(queue);
        return signal == null ? 0 : signal.waiting.get();
    }

    /** How many queues have waiting receivers, hence a signal, now. */
    int signals() {
        return signals.size();
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
    final class Signal {

        private final QueueName queue;
        /** Changed only inside {@code signals.compute}; atomic so {@link Waiters#waiting} reads it unlocked. */
        private final AtomicInteger waiting = new AtomicInteger();
        /** By identity: a waiter re-registers its one callback at every poll, and a send must run it once. */
        private final Set<Runnable> listeners = Collections.newSetFromMap(new IdentityHashMap<>());

        private long generation;

        private Signal(QueueName queue) {
            this.queue = queue;
        }

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

        /**
         * Runs {@code listener} once the generation moves past {@code seen} (at once if it already has). Registering
         * the same listener again before that is a no-op.
         */
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

        /** How many callbacks the next send runs. */
        synchronized int listeners() {
            return listeners.size();
        }

        /** Ends this waiter's wait; the queue's last waiter removes the signal. */
        void leave() {
            signals.compute(queue, (name, signal) -> {
                if (signal != this) {
                    // This signal is gone, so all its waiters left: a second leave must not count down a new one.
                    return signal;
                }
                return waiting.decrementAndGet() == 0 ? null : this;
            });
        }
    }
}
