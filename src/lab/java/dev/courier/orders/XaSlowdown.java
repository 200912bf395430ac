package dev.courier.orders;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.TimeUnit;

/**
 * The lab's "one consumer slowed" fault as XA mode suffers it: the inventory work runs in-line in the order's global
 * transaction, and half of the orders meet the slowed inventory instance, whose work takes {@code factor} times as
 * long as it did (1 = normal speed), holding the stock row's lock meanwhile. "As long as it did" is the mean the
 * work took at normal speed, frozen when the slowdown starts, as the inventory service's own slowdown has it for the
 * asynchronous modes (not the piece's own time, which includes waiting for the lock a slowed holder keeps).
 */
@ApplicationScoped
public class XaSlowdown {

    static final int MAX_FACTOR = 100;

    private double meanNanos;
    private long frozenNanos;
    private int factor = 1;

    synchronized int factor() {
        return factor;
    }

    /** @throws OrderProblem 400 for a factor outside 1..100 */
    synchronized void slowDown(int factor) {
        if (factor < 1 || factor > MAX_FACTOR) {
            throw OrderProblem.invalid("'factor' must be between 1 and " + MAX_FACTOR);
        }
        if (this.factor == 1 && factor > 1) {
            frozenNanos = Math.round(meanNanos);
        }
        this.factor = factor;
    }

    /** Called after the reservation that took {@code tookNanos}, by inventory instance {@code instance} (0 or 1). */
    void pace(int instance, long tookNanos) {
        long extra = extraNanos(instance, tookNanos);
        if (extra > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(extra);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized long extraNanos(int instance, long tookNanos) {
        if (factor == 1) {
            meanNanos = meanNanos == 0 ? tookNanos : 0.9 * meanNanos + 0.1 * tookNanos;
            return 0;
        }
        return instance == 0 ? (factor - 1) * (frozenNanos == 0 ? tookNanos : frozenNanos) : 0;
    }
}
