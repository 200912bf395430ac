package dev.courier.platform;

import jakarta.enterprise.context.ApplicationScoped;

/** The production {@link FaultInjection}: every checkpoint passes. */
@ApplicationScoped
public class NoFaults implements FaultInjection {

    @Override
    public void checkpoint(String point) {
        // Production never injects faults.
    }
}
