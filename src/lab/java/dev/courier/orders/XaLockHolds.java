package dev.courier.orders;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.Arrays;

/**
 * How long each xa transaction holds its stock row's lock: from the reservation's {@code UPDATE} (the row lock
 * taken) to the end of the global transaction's two-phase commit (the lock released with the inventory branch's
 * commit, at the latest when the transaction completes). The lab reads it per load point: the lock held through
 * 2PC is what bounds xa on one hot item. Keeps the last {@value #CAPACITY} holds since the last reset.
 */
@ApplicationScoped
public class XaLockHolds {

    private static final int CAPACITY = 1 << 20;

    private long[] nanos = new long[1024];
    private int count;

    synchronized void record(long heldNanos) {
        if (count == nanos.length && nanos.length < CAPACITY) {
            nanos = Arrays.copyOf(nanos, nanos.length * 2);
        }
        nanos[count % nanos.length] = heldNanos;
        count++;
    }

    /** {@code {"count", "meanMs", "p50Ms", "p99Ms", "maxMs"}} of the holds since the last reset. */
    synchronized JsonObject summary() {
        long[] held = Arrays.copyOf(nanos, Math.min(count, nanos.length));
        Arrays.sort(held);
        double mean = Arrays.stream(held).average().orElse(0);
        return Json.createObjectBuilder()
                .add("count", count)
                .add("meanMs", mean / 1e6)
                .add("p50Ms", percentile(held, 50) / 1e6)
                .add("p99Ms", percentile(held, 99) / 1e6)
                .add("maxMs", held.length == 0 ? 0 : held[held.length - 1] / 1e6)
                .build();
    }

    synchronized void reset() {
        count = 0;
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)];
    }
}
