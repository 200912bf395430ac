package dev.courier.scenario;

import dev.courier.platform.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.TimeUnit;

/**
 * The lab's "one consumer slowed" fault, as the business would suffer it: the inventory work of one of the two
 * inventory instances takes {@code factor} times as long as it did (1 = normal speed). Instance 0 is the slowed one:
 * the first queue worker, the first RMS inventory consumer; in XA mode, where every request does the inventory work
 * in-line inside the global transaction, half of the orders (and their locks are held for the extra time).
 */
@ApplicationScoped
public class SlowConsumer {

    static final int MAX_FACTOR = 100;

    private volatile int factor = 1;

    int factor() {
        return factor;
    }

    void slowDown(int factor) {
        if (factor < 1 || factor > MAX_FACTOR) {
            throw ProblemException.invalid("'factor' must be between 1 and " + MAX_FACTOR);
        }
        this.factor = factor;
    }

    /** Called by instance {@code instance} after work that took {@code tookNanos}: stretches it if it is the slowed one. */
    void pace(int instance, long tookNanos) {
        int f = factor;
        if (instance != 0 || f == 1) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep((f - 1) * tookNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
