package dev.courier.queue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which other servers have been heard on the wake-up topic lately: a server alone does not publish wake-ups
 * nobody reads, and a server it had not heard of is answered so that it learns of this one at once. A server
 * counts as listening for three presence intervals after anything was heard from it, so one lost announcement
 * changes nothing. Times are {@link System#nanoTime} readings.
 */
final class OtherServers {

    private final long windowNanos;
    private final Map<String, Long> lastHeard = new ConcurrentHashMap<>();
    /** When any other server was last heard: the one reading the send path needs. */
    private volatile long latest;

    private volatile boolean heardAny;

    OtherServers(Duration presenceInterval) {
        this.windowNanos = presenceInterval.multipliedBy(3).toNanos();
    }

    /**
     * The server {@code origin} spoke at {@code now}.
     *
     * @return true when it had not been heard within the window: it may not know of this server yet, so answer it
     */
    boolean heard(String origin, long now) {
        Long before = lastHeard.put(origin, now);
        lastHeard.values().removeIf(at -> now - at > windowNanos); // servers gone quiet
        latest = now;
        heardAny = true;
        return before == null || now - before > windowNanos;
    }

    /** Whether another server was heard within the window before {@code now}. */
    boolean listening(long now) {
        return heardAny && now - latest <= windowNanos;
    }
}
