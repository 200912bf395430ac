package dev.courier.testing;

import dev.courier.platform.FaultInjection;
import dev.courier.platform.InjectedFault;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' {@link FaultInjection}: a checkpoint fails as many times as a test armed it, or, armed to hold,
 * blocks the thread that reaches it until the faults are disarmed (a crash test kills the server meanwhile, with
 * the work stopped exactly there).
 */
@Alternative
@Priority(1000)
@ApplicationScoped
public class ArmedFaults implements FaultInjection {

    private record Armed(AtomicInteger left, boolean hold, boolean error) {}

    /** What an armed point throws to stand for an {@link Error} (an OutOfMemoryError, a class that failed to load). */
    public static final class InjectedError extends Error {
        InjectedError(String point) {
            super("injected error at " + point);
        }
    }

    /** Makes the next {@code times} passes through {@code point} throw an {@link InjectedError}. */
    public void armError(String point, int times) {
        armed.put(point, new Armed(new AtomicInteger(times), false, true));
    }

    private final Map<String, Armed> armed = new ConcurrentHashMap<>();
    /** Threads blocked at a holding checkpoint, per point. */
    private final Map<String, AtomicInteger> held = new ConcurrentHashMap<>();

    /** Makes the next {@code times} passes through {@code point} fail. */
    public void arm(String point, int times) {
        arm(point, times, false);
    }

    /** @param hold block the next {@code times} passes (until {@link #disarmAll}) instead of failing them */
    public void arm(String point, int times, boolean hold) {
        armed.put(point, new Armed(new AtomicInteger(times), hold, false));
    }

    /** How many threads wait at {@code point}'s hold now. */
    public int held(String point) {
        AtomicInteger waiting = held.get(point);
        return waiting == null ? 0 : waiting.get();
    }

    /** How many of the passes {@code point} was armed for are still to come (0 when all came, or not armed). */
    public int left(String point) {
        Armed a = armed.get(point);
        return a == null ? 0 : Math.max(0, a.left().get());
    }

    public synchronized void disarmAll() {
        armed.clear();
        notifyAll();
    }

    @Override
    public boolean armed() {
        return !armed.isEmpty();
    }

    @Override
    public void checkpoint(String point) {
        Armed a = armed.get(point);
        if (a == null || a.left().getAndDecrement() <= 0) {
            return;
        }
        if (a.error()) {
            throw new InjectedError(point);
        }
        if (!a.hold()) {
            throw new InjectedFault(point);
        }
        AtomicInteger waiting = held.computeIfAbsent(point, p -> new AtomicInteger());
        waiting.incrementAndGet();
        try {
            synchronized (this) {
                while (armed.get(point) == a) {
                    wait(1000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting.decrementAndGet();
        }
    }
}
