package dev.courier.orders;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Admission control for XA orders: at most {@code courier.scenario.xa-concurrency} (default 16; 0 = no limit) run
 * at once, the others wait their turn (up to 30 s, then 503). Every XA order locks the item's stock row from its
 * update to the end of the two-phase commit and holds a pooled connection on each database meanwhile, so beyond
 * the lock's own rate more concurrency adds only waiting: the lab saw 64 unadmitted clients fall from 65 to 12
 * orders/s, most of the rest timing out on the connection pools. Not MicroProfile's {@code @Bulkhead}: its
 * synchronous form refuses at once instead of queueing.
 */
@ApplicationScoped
public class XaAdmission {

    private static final long WAIT_SECONDS = 30;

    @Inject
    @ConfigProperty(name = "courier.scenario.xa-concurrency", defaultValue = "16")
    int concurrency;

    private Semaphore permits;

    @PostConstruct
    void init() {
        permits = concurrency > 0 ? new Semaphore(concurrency, true) : null;
    }

    /** Runs {@code order} when a permit is free. @throws OrderProblem 503 when none was within 30 s */
    <T> T admit(Supplier<T> order) {
        if (permits == null) {
            return order.get();
        }
        try {
            if (!permits.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new OrderProblem(503, "Busy", "too many XA orders in progress; retry later");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OrderProblem(503, "Busy", "interrupted while waiting for a turn");
        }
        try {
            return order.get();
        } finally {
            permits.release();
        }
    }
}
