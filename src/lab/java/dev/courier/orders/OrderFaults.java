package dev.courier.orders;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The orders service's test seam: a named point in an order's flow that a test may make fail, as if the step had
 * crashed there ({@link InjectedFault}, which rolls the order's transaction back). Armed over HTTP
 * ({@code api/test/faults}) only when {@code courier.lab.orders.test-faults} is {@code true} (the test server's
 * setting; default {@code false}: the seam answers 404 and every checkpoint passes).
 */
@ApplicationScoped
public class OrderFaults {

    /** XA mode, after the reservation and before the {@code OrderPlaced} event is sent. */
    static final String XA_BEFORE_PUBLISH = "scenario.xa.before-publish";

    /** RMS mode, the call to Courier: armed, it stands for Courier unreachable. */
    static final String RMS_COURIER_CALL = "scenario.rms.courier-call";

    @Inject
    @ConfigProperty(name = "courier.lab.orders.test-faults", defaultValue = "false")
    boolean enabled;

    private final Map<String, Integer> armed = new HashMap<>();

    /** @throws InjectedFault when a test armed {@code point} */
    void checkpoint(String point) {
        if (!enabled) {
            return; // no lock on every order when the seam is off
        }
        synchronized (this) {
            Integer left = armed.get(point);
            if (left == null || left == 0) {
                return;
            }
            armed.put(point, left - 1);
        }
        throw new InjectedFault(point);
    }

    boolean enabled() {
        return enabled;
    }

    /** @throws OrderProblem 400 for a negative count */
    synchronized void arm(String point, int times) {
        if (times < 0) {
            throw OrderProblem.invalid("'times' must not be negative");
        }
        armed.put(point, times);
    }

    /** How many more times {@code point} fails. */
    synchronized int left(String point) {
        return armed.getOrDefault(point, 0);
    }

    synchronized void disarm() {
        armed.clear();
    }

    /** A failure a test injected at a checkpoint. */
    static class InjectedFault extends RuntimeException {

        private static final long serialVersionUID = 1L;

        InjectedFault(String point) {
            super("fault injected at " + point);
        }
    }
}
