package dev.courier.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.courier.platform.ProblemException;
import org.junit.jupiter.api.Test;

class SlowConsumerTest {

    private final SlowConsumer slow = new SlowConsumer();

    @Test
    void at_normal_speed_nothing_is_added_and_the_mean_is_learned() {
        assertEquals(0, slow.extraNanos(Mode.QUEUE, 0, 1_000));
        assertEquals(0, slow.extraNanos(Mode.QUEUE, 1, 1_000));
    }

    @Test
    void the_slowed_instance_adds_factor_minus_one_times_the_mean_before_the_slowdown() {
        slow.extraNanos(Mode.XA, 0, 2_000);
        slow.extraNanos(Mode.XA, 1, 2_000);
        slow.slowDown(10);

        assertEquals(9 * 2_000, slow.extraNanos(Mode.XA, 0, 50_000), "not the stretched time of this piece of work");
        assertEquals(0, slow.extraNanos(Mode.XA, 1, 50_000), "the other instance is not slowed");
        slow.slowDown(1);
        assertEquals(0, slow.extraNanos(Mode.XA, 0, 2_000));
    }

    @Test
    void each_mode_keeps_its_own_mean() {
        slow.extraNanos(Mode.XA, 0, 1_000);
        slow.extraNanos(Mode.QUEUE, 0, 5_000);
        slow.slowDown(3);
        assertEquals(2 * 1_000, slow.extraNanos(Mode.XA, 0, 1));
        assertEquals(2 * 5_000, slow.extraNanos(Mode.QUEUE, 0, 1));
    }

    @Test
    void refuses_a_factor_out_of_range() {
        assertThrows(ProblemException.class, () -> slow.slowDown(0));
        assertThrows(ProblemException.class, () -> slow.slowDown(101));
    }
}
