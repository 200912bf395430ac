package dev.courier.scenario;

import dev.courier.platform.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The lab's "one consumer slowed" fault, as the business would suffer it: the inventory work of one of the two
 * inventory instances takes {@code factor} times as long as it did (1 = normal speed). Instance 0 is the slowed one:
 * the first queue worker, the first RMS inventory consumer. XA mode does its inventory work in-line in the orders
 * service's global transaction, which slows half of its orders itself ({@code dev.courier.orders.XaSlowdown}).
 *
 * <p>"As long as it did" is the mean time the work took per mode at normal speed, frozen when the slowdown starts:
 * the slowed instance then adds (factor − 1) × that mean to each piece of work. Not the time the piece itself took,
 * which includes waiting for locks: a slowed holder makes the others wait, and their stretched waits would stretch
 * the next holder's sleep without end.
 */
@ApplicationScoped
public class SlowConsumer {

    static final int MAX_FACTOR = 100;

    private final Map<Mode, Double> meanNanos = new EnumMap<>(Mode.class);
    private final Map<Mode, Long> frozenNanos = new EnumMap<>(Mode.class);
    private int factor = 1;

    synchronized int factor() {
        return factor;
    }

    synchronized void slowDown(int factor) {
        if (factor < 1 || factor > MAX_FACTOR) {
            throw ProblemException.invalid("'factor' must be between 1 and " + MAX_FACTOR);
        }
        if (this.factor == 1 && factor > 1) {
            meanNanos.forEach((mode, mean) -> frozenNanos.put(mode, Math.round(mean)));
        }
        this.factor = factor;
    }

    /** Called by inventory instance {@code instance} of {@code mode} after work that took {@code tookNanos}. */
    void pace(Mode mode, int instance, long tookNanos) {
        long extra = extraNanos(mode, instance, tookNanos);
        if (extra > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(extra);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How long the instance must still take; at normal speed, 0, and the work's time joins the mean. */
    synchronized long extraNanos(Mode mode, int instance, long tookNanos) {
        if (factor == 1) {
            meanNanos.merge(mode, (double) tookNanos, (mean, took) -> 0.9 * mean + 0.1 * took);
            return 0;
        }
        return instance == 0 ? (factor - 1) * frozenNanos.getOrDefault(mode, tookNanos) : 0;
    }
}
