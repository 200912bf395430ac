package dev.courier.reliable;

import dev.courier.platform.AfterCommit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Wakes this server's {@link Relay} when a transaction that wrote to the outbox commits: once per transaction,
 * however many entries it wrote, and never for one that rolled back.
 */
@ApplicationScoped
class RelaySignal {

    private static final String KEY = RelaySignal.class.getName();

    @Inject
    private AfterCommit afterCommit;

    private final Semaphore wake = new Semaphore(0);

    /** The relay wakes once the current transaction has committed (at once without a transaction). */
    void afterCommit() {
        afterCommit.record(KEY, () -> Boolean.TRUE, x -> {}, x -> wake());
    }

    void wake() {
        if (wake.availablePermits() == 0) {
            wake.release();
        }
    }

    /** Waits until woken or {@code timeout} passed. @return true when woken */
    boolean await(Duration timeout) throws InterruptedException {
        boolean woken = wake.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
        wake.drainPermits();
        return woken;
    }
}
