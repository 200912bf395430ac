package dev.courier.testing;

import dev.courier.platform.FaultInjection;
import dev.courier.platform.InjectedFault;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The tests' {@link FaultInjection}: a checkpoint fails as many times as a test armed it. */
@Alternative
@Priority(1000)
@ApplicationScoped
public class ArmedFaults implements FaultInjection {

    private final Map<String, AtomicInteger> armed = new ConcurrentHashMap<>();

    /** Makes the next {@code times} passes through {@code point} fail. */
    public void arm(String point, int times) {
        armed.put(point, new AtomicInteger(times));
    }

    public void disarmAll() {
        armed.clear();
    }

    @Override
    public void checkpoint(String point) {
        AtomicInteger left = armed.get(point);
        if (left != null && left.getAndDecrement() > 0) {
            throw new InjectedFault(point);
        }
    }
}
