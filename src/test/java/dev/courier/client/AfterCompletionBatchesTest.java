package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batcher's bounds, which the helpers' integration tests cannot pin down: at most {@code MAX_CALLS} calls on
 * their way at once however many items arrive, the items that come meanwhile going together in the next calls, and
 * an item past {@code maxQueued} dropped at once (left to Courier's recovery) rather than waiting. The calls here
 * are held on a latch, so what is on its way is known exactly. (The real calls are {@code UpstreamFailureIT}'s.)
 */
class AfterCompletionBatchesTest {

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final List<List<String>> calls = Collections.synchronizedList(new ArrayList<>());

    /** A call that stays on its way until released, counting how many are at once. */
    private final Function<List<String>, List<String>> held = batch -> {
        mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
            release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        calls.add(List.copyOf(batch));
        running.decrementAndGet();
        return Collections.nCopies(batch.size(), null);
    };

    @AfterEach
    void stop() {
        release.countDown();
        executor.shutdownNow();
    }

    @Test
    void no_more_calls_at_once_than_the_limit_and_what_comes_meanwhile_goes_together_next() throws Exception {
        AfterCompletionBatches<String> batches =
                new AfterCompletionBatches<>("items", "recovery", held, id -> id, executor, 500, 10_000);
        for (int i = 0; i < AfterCompletionBatches.MAX_CALLS; i++) {
            assertTrue(batches.add("m" + i));
            awaitRunning(i + 1); // each on a call of its own, held
        }
        for (int i = AfterCompletionBatches.MAX_CALLS; i < 100; i++) {
            assertTrue(batches.add("m" + i));
        }
        Thread.sleep(200); // had a further call started, it would be running by now
        assertEquals(AfterCompletionBatches.MAX_CALLS, running.get(), "the limit's calls on their way, no more");
        assertEquals(100, batches.waiting(), "every item waiting or on its way");

        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (batches.waiting() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, batches.waiting());
        assertEquals(AfterCompletionBatches.MAX_CALLS, mostAtOnce.get());
        List<String> sent = calls.stream().flatMap(List::stream).sorted().toList();
        assertEquals(100, sent.size(), "each item sent once");
        assertEquals(100, sent.stream().distinct().count());
        assertTrue(
                calls.size() <= 2 * AfterCompletionBatches.MAX_CALLS,
                "the items that waited went together: " + calls.size() + " calls for 100 items");
    }

    @Test
    void an_item_past_the_waiting_limit_is_dropped_at_once() throws Exception {
        AfterCompletionBatches<String> batches =
                new AfterCompletionBatches<>("items", "recovery", held, id -> id, executor, 500, 3);
        assertTrue(batches.add("a"));
        assertTrue(batches.add("b"));
        assertTrue(batches.add("c"));
        assertFalse(batches.add("d"), "a fourth item while three wait: dropped");
        assertEquals(3, batches.waiting());

        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (batches.waiting() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(
                List.of("a", "b", "c"),
                calls.stream().flatMap(List::stream).sorted().toList(),
                "the dropped item never sent");
        assertTrue(batches.add("e"), "room again once the waiting ones went");
    }

    private void awaitRunning(int calls) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (running.get() < calls && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(calls, running.get());
    }
}
