package dev.courier.bench;

import java.util.Arrays;

/** Latencies of one measured run, in nanoseconds, and the percentiles the reports print. */
public final class Latencies {

    private final long[] sorted;

    public Latencies(long[] nanos) {
        this.sorted = nanos.clone();
        Arrays.sort(this.sorted);
    }

    /** The p-th percentile (0 < p ≤ 100) in milliseconds; 0 when nothing was measured. */
    public double percentileMillis(double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1_000_000.0;
    }

    public int count() {
        return sorted.length;
    }
}
