package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));

    @Test
    void should_grow_by_the_multiplier_up_to_the_maximum() {
        assertEquals(Duration.ofSeconds(1), backoff.delayAfter(1, 0.999_999_999));
        assertEquals(Duration.ofSeconds(2), backoff.delayAfter(2, 0.999_999_999));
        assertEquals(Duration.ofSeconds(8), backoff.delayAfter(4, 0.999_999_999));
        assertEquals(Duration.ofSeconds(10), backoff.delayAfter(5, 0.999_999_999), "capped");
        assertEquals(Duration.ofSeconds(10), backoff.delayAfter(60, 0.999_999_999), "no overflow far out");
    }

    @Test
    void should_jitter_into_the_upper_half() {
        assertEquals(Duration.ofMillis(1000), backoff.delayAfter(2, 0.0));
        assertEquals(Duration.ofMillis(1500), backoff.delayAfter(2, 0.5));
    }

    @Test
    void should_refuse_nonsense() {
        assertThrows(ProblemException.class, () -> new Backoff(Duration.ofSeconds(5), 2.0, Duration.ofSeconds(1)));
        assertThrows(ProblemException.class, () -> new Backoff(Duration.ofSeconds(-1), 2.0, Duration.ofSeconds(1)));
        assertThrows(ProblemException.class, () -> new Backoff(Duration.ZERO, 0.5, Duration.ofSeconds(1)));
        assertThrows(ProblemException.class, () -> new Backoff(Duration.ZERO, Double.NaN, Duration.ofSeconds(1)));
        assertThrows(ProblemException.class, () -> new Backoff(Duration.ZERO, 2.0, Duration.ofDays(2)));
    }

    @Test
    void should_jitter_below_the_ceiling() {
        assertEquals(backoff.ceiling(3), backoff.delayAfter(3, 1.0));
        assertEquals(backoff.ceiling(3).dividedBy(2), backoff.delayAfter(3, 0.0));
    }
}
