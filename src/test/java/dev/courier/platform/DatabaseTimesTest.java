package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class DatabaseTimesTest {

    private static final Instant T = Instant.parse("2026-12-01T06:00:00Z");
    private final DatabaseTimes times = new DatabaseTimes();

    @Test
    void should_follow_the_database_forward() {
        assertEquals(T, times.next(T));
        assertEquals(T.plusMillis(3), times.next(T.plusMillis(3)));
    }

    @Test
    void should_hold_a_small_step_back_at_the_latest_time_given() {
        times.next(T.plusMillis(5)); // an estimate a little ahead of the database
        assertEquals(T.plusMillis(5), times.next(T), "a message sent at +5 ms is due at the next receive");
        assertEquals(T.plusMillis(5), times.next(T.plusMillis(4)));
        assertEquals(T.plusMillis(6), times.next(T.plusMillis(6)));
    }

    @Test
    void should_follow_a_database_clock_set_back() {
        times.next(T);
        Instant setBack = T.minus(DatabaseTimes.SMOOTHED).minusMillis(1);
        assertEquals(setBack, times.next(setBack), "held, leases would not expire until the clock caught up");
        assertEquals(setBack.plusMillis(1), times.next(setBack.plusMillis(1)));
    }
}
