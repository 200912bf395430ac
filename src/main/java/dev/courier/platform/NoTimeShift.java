package dev.courier.platform;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;

/** Production time: not shifted. Tests replace it (with their settable clock). */
@ApplicationScoped
public class NoTimeShift implements TimeShift {

    @Override
    public Duration ahead() {
        return Duration.ZERO;
    }
}
