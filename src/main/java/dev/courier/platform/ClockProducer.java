package dev.courier.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Produces the one {@link Clock} Courier reads the server's time from. Inject it wherever time matters (leases,
 * delays, time-outs) so that tests can replace it with an alternative and move time by hand instead of sleeping.
 *
 * <p>{@code courier.clock.skew} (default {@code PT0S}) shifts this clock, to show what a server whose clock is
 * wrong does: the transactional queue on PostgreSQL must not care, since it reads time from the database.
 */
@ApplicationScoped
public class ClockProducer {

    @Inject
    @ConfigProperty(name = "courier.clock.skew", defaultValue = "PT0S")
    Duration skew;

    @Produces
    @ApplicationScoped
    Clock clock() {
        return skew.isZero() ? Clock.systemUTC() : Clock.offset(Clock.systemUTC(), skew);
    }
}
