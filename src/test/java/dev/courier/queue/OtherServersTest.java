package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OtherServersTest {

    private static final long SECOND = 1_000_000_000L;
    private final OtherServers others = new OtherServers(Duration.ofSeconds(5));

    @Test
    void should_count_nobody_listening_until_another_server_is_heard() {
        assertFalse(others.listening(-7 * SECOND), "nothing heard yet, whatever the clock reads");
        assertFalse(others.listening(0));
        assertTrue(others.heard("a", 100 * SECOND), "the first server heard is news: answer it");
        assertTrue(others.listening(100 * SECOND));
    }

    @Test
    void should_keep_listening_for_three_intervals_and_then_forget() {
        others.heard("a", 100 * SECOND);
        assertFalse(others.heard("a", 104 * SECOND), "heard again within the window: not news");
        assertTrue(others.listening(119 * SECOND), "one lost announcement (at 109 s) changes nothing");
        assertFalse(others.listening(120 * SECOND));
        assertTrue(others.heard("a", 121 * SECOND), "a server heard after the window is news again");
    }

    @Test
    void should_take_a_presence_interval_under_a_second_as_one() {
        QueueSettings settings = new QueueSettings();
        settings.presenceInterval = Duration.ZERO;
        assertEquals(Duration.ofSeconds(1), settings.presence(), "zero would make a timer that never stops firing");
        settings.presenceInterval = Duration.ofSeconds(-5);
        assertEquals(Duration.ofSeconds(1), settings.presence());
        settings.presenceInterval = Duration.ofSeconds(7);
        assertEquals(Duration.ofSeconds(7), settings.presence());
    }

    @Test
    void should_answer_each_new_server_even_while_others_are_heard() {
        others.heard("a", 100 * SECOND);
        assertTrue(others.heard("b", 101 * SECOND), "a third server (or a restarted one) is news");
        assertFalse(others.heard("b", 102 * SECOND));
        assertFalse(others.heard("a", 103 * SECOND));
    }
}
