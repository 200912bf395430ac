package dev.courier.testing;

import dev.courier.platform.TimeShift;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tests' clock: real time plus an offset that tests move forward by hand, so that a lease expires or a
 * scheduled message becomes due without sleeping. It never goes back. The same offset shifts the time read
 * from the database ({@link TimeShift}).
 */
@Alternative
@Priority(1000)
@ApplicationScoped
public class SettableClock extends Clock implements TimeShift {

    private final AtomicLong offsetNanos = new AtomicLong();

    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("the clock only moves forward");
        }
        offsetNanos.addAndGet(duration.toNanos());
    }

    @Override
    public Duration ahead() {
        return Duration.ofNanos(offsetNanos.get());
    }

    @Override
    public Instant instant() {
        return Clock.systemUTC().instant().plusNanos(offsetNanos.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("Courier keeps time in UTC");
    }
}
