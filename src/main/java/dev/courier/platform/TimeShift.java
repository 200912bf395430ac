package dev.courier.platform;

import java.time.Duration;

/**
 * How far tests have moved time ahead of the real clocks; zero in production. Code that reads time from the
 * database instead of the injected {@link java.time.Clock} adds it, so tests still move time by hand instead of
 * sleeping while the server's own clock plays no part.
 */
public interface TimeShift {

    /** The shift, never negative. */
    Duration ahead();
}
