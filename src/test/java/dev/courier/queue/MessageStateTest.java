package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class MessageStateTest {

    private final Instant now = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void should_derive_the_state_from_the_row_and_the_time() {
        assertEquals(MessageState.READY, MessageState.observe("READY", now, null, now));
        assertEquals(MessageState.SCHEDULED, MessageState.observe("READY", now.plusSeconds(1), null, now));
        assertEquals(MessageState.LEASED, MessageState.observe("READY", now.plusSeconds(12), now.plusSeconds(10), now));
        assertEquals(
                MessageState.SCHEDULED,
                MessageState.observe("READY", now.plusSeconds(2), now.minusSeconds(1), now),
                "an expired lease waiting out its backoff");
        assertEquals(MessageState.DEAD, MessageState.observe("DEAD", now, null, now));
    }

    @Test
    void should_allow_only_the_moves_of_the_life_cycle() {
        assertTrue(MessageState.READY.canMoveTo(MessageState.LEASED));
        assertTrue(MessageState.LEASED.canMoveTo(MessageState.DELETED));
        assertTrue(MessageState.DEAD.canMoveTo(MessageState.READY));
        assertFalse(MessageState.SCHEDULED.canMoveTo(MessageState.LEASED), "not before its time");
        assertFalse(MessageState.DELETED.canMoveTo(MessageState.READY), "gone is gone");
        assertThrows(IllegalStateException.class, () -> MessageState.DELETED.requireMoveTo(MessageState.READY));
    }
}
