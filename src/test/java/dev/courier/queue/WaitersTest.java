package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WaitersTest {

    private static final QueueName ORDERS = QueueName.of("orders");

    private final Waiters waiters = new Waiters();

    @Test
    void should_run_a_waiter_once_per_send_however_often_it_polled() {
        Waiters.Signal signal = waiters.enter(ORDERS, 10);
        AtomicInteger runs = new AtomicInteger();
        Runnable wake = runs::incrementAndGet;
        for (int poll = 0; poll < 100; poll++) {
            signal.onChange(signal.generation(), wake); // a quiet queue: every poll registers again
        }
        waiters.wake(ORDERS);
        assertEquals(1, runs.get(), "callback runs on the send");
        assertEquals(0, signal.listeners(), "a send consumes the registration");
    }

    @Test
    void should_forget_a_waiter_entirely() {
        Waiters.Signal signal = waiters.enter(ORDERS, 10);
        Runnable wake = () -> {};
        for (int poll = 0; poll < 100; poll++) {
            signal.onChange(signal.generation(), wake);
        }
        signal.forget(wake);
        assertEquals(0, signal.listeners(), "listeners left after forget");
    }

    @Test
    void should_drop_a_queue_signal_with_its_last_waiter() {
        for (int i = 0; i < 1000; i++) {
            QueueName name = QueueName.of("q" + Integer.toHexString(i * 7919));
            Waiters.Signal first = waiters.enter(name, 10);
            Waiters.Signal second = waiters.enter(name, 10);
            first.leave();
            assertEquals(1, waiters.waiting(name));
            second.leave();
            waiters.enter(QueueName.of("unknown" + i), 10).leave(); // what a receive on an unknown queue does
        }
        assertEquals(0, waiters.signals(), "signals left after every waiter left");
    }

    @Test
    void should_keep_the_limit_and_leave_nothing_behind_when_refusing() {
        Waiters.Signal first = waiters.enter(ORDERS, 2);
        Waiters.Signal second = waiters.enter(ORDERS, 2);
        assertThrows(QueueLimitException.class, () -> waiters.enter(ORDERS, 2));
        assertEquals(2, waiters.waiting(ORDERS));
        first.leave();
        Waiters.Signal third = waiters.enter(ORDERS, 2);
        second.leave();
        third.leave();
        assertThrows(QueueLimitException.class, () -> waiters.enter(QueueName.of("refused"), 0));
        assertEquals(0, waiters.waiting(ORDERS));
        assertEquals(0, waiters.signals(), "signals left after every waiter left or was refused");
    }

    @Test
    void should_count_and_wake_every_waiter_while_others_come_and_go() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Callable<Integer> churn = () -> {
                int unreachable = 0;
                for (int i = 0; i < 20_000; i++) {
                    Waiters.Signal signal = waiters.enter(ORDERS, threads);
                    // A waiter inside must hold the queue's current signal, or sends would never wake it.
                    long seen = signal.generation();
                    waiters.wake(ORDERS);
                    if (signal.generation() == seen) {
                        unreachable++;
                    }
                    signal.leave();
                }
                return unreachable;
            };
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(churn));
            }
            for (Future<Integer> result : results) {
                assertEquals(0, result.get(), "waiters holding a signal that sends do not reach");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, waiters.waiting(ORDERS));
        assertEquals(0, waiters.signals(), "signals left after every waiter left");
    }
}
