package dev.courier.queue;

import java.time.Duration;

/**
 * Whether another server has been heard on the wake-up topic lately: a server alone does not publish wake-ups
 * nobody reads. Another server counts as listening for three presence intervals after anything was heard from
 * it, so one lost announcement changes nothing. Times are {@link System#nanoTime} readings.
 */
final class OtherServers {

    private final long windowNanos;
    private volatile long lastHeard;
    private volatile boolean heardAny;

    OtherServers(Duration presenceInterval) {
        this.windowNanos = presenceInterval.multipliedBy(3).toNanos();
    }

    /**
     * Another server spoke at {@code now}.
     *
     * @return true when none was listening before: that server may not know of this one yet, so answer it
     */
    boolean heard(long now) {
        boolean news = !listening(now);
        lastHeard = now;
        heardAny = true;
        return news;
    }

    /** Whether another server was heard within the window before {@code now}. */
    boolean listening(long now) {
        return heardAny && now - lastHeard <= windowNanos;
    }
}
