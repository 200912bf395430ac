package dev.courier.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/**
 * Produces the one {@link Clock} Courier reads time from. Inject it wherever time matters (leases, delays,
 * time-outs) so that tests can replace it with an alternative and move time by hand instead of sleeping.
 */
@ApplicationScoped
public class ClockProducer {

    @Produces
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }
}
