package dev.courier.queue;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
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

    /** Wakes the receivers waiting on {@code queue}; called after a send to it committed. */
    void wake(QueueName queue) {
        Signal signal = signals.get(queue);
        if (signal != null) {
            signal.bump();
        }
    }

    /** A queue's wake-up signal: a generation number that every committed send increments. */
    static final class Signal {

        private final AtomicInteger waiting = new AtomicInteger();
        private long generation;

        synchronized long generation() {
            return generation;
        }

        private synchronized void bump() {
            generation++;
            notifyAll();
        }

        /** Waits until the generation moves past {@code seen} or {@code nanos} pass. */
        synchronized void awaitChange(long seen, long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            while (generation == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        void leave() {
            waiting.decrementAndGet();
        }
    }
}
