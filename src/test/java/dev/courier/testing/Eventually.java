package dev.courier.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/** Waits for something that happens asynchronously (a delivery, a health change), polling with a deadline. */
public final class Eventually {

    private Eventually() {}

    /** Polls {@code probe} until it returns a value or {@code limit} passes; fails with {@code what} then. */
    public static <T> T await(String what, Duration limit, Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + limit + " waiting for " + what);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    /** Polls {@code condition} until true or {@code limit} passes. */
    public static void until(String what, Duration limit, Supplier<Boolean> condition) {
        await(what, limit, () -> condition.get() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }
}
