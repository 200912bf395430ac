package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.ProblemException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pure logic of the reliable message service: its two state machines, the producer gate, names and content. */
class StatesTest {

    @Test
    void should_allow_only_the_protocol_moves_of_a_message() {
        assertTrue(MessageState.PENDING.canMoveTo(MessageState.SENT));
        assertTrue(MessageState.PENDING.canMoveTo(MessageState.CANCELLED));
        assertTrue(MessageState.PENDING.canMoveTo(MessageState.DEAD));
        assertTrue(MessageState.DEAD.canMoveTo(MessageState.PENDING), "resume");
        assertTrue(MessageState.DEAD.canMoveTo(MessageState.SENT), "a late confirm still counts");
        assertTrue(MessageState.SENT.canMoveTo(MessageState.COMPLETED));
        assertFalse(MessageState.SENT.canMoveTo(MessageState.CANCELLED), "no cancel after confirm");
        assertFalse(MessageState.CANCELLED.canMoveTo(MessageState.SENT), "no confirm after cancel");
        assertFalse(MessageState.COMPLETED.canMoveTo(MessageState.PENDING));
        assertEquals(
                EnumSet.of(MessageState.COMPLETED, MessageState.CANCELLED),
                EnumSet.copyOf(java.util.Arrays.stream(MessageState.values())
                        .filter(MessageState::isFinal)
                        .toList()));
    }

    @Test
    void should_allow_only_the_ledger_moves_of_a_delivery() {
        assertTrue(DeliveryState.DELIVERED.canMoveTo(DeliveryState.DELIVERED), "redelivery");
        assertTrue(DeliveryState.DELIVERED.canMoveTo(DeliveryState.CONSUMED));
        assertTrue(DeliveryState.DELIVERED.canMoveTo(DeliveryState.DEAD));
        assertTrue(DeliveryState.DEAD.canMoveTo(DeliveryState.DELIVERED), "replay");
        assertTrue(DeliveryState.DEAD.canMoveTo(DeliveryState.CONSUMED), "a late report still counts");
        for (DeliveryState next : DeliveryState.values()) {
            assertFalse(DeliveryState.CONSUMED.canMoveTo(next), "consumed is final");
        }
    }

    @Test
    void should_refuse_every_write_or_record_of_a_move_the_machines_do_not_allow() {
        assertThrows(IllegalStateException.class, () -> MessageState.SENT.requireMoveTo(MessageState.CANCELLED));
        assertThrows(IllegalStateException.class, () -> DeliveryState.CONSUMED.requireMoveTo(DeliveryState.DEAD));
        MessageState.PENDING.requireMoveTo(MessageState.SENT);
        // A batch's moves are checked as they are recorded, in the transaction that writes them: it rolls back.
        assertThrows(
                IllegalStateException.class,
                () -> new HistoryStore.Moved("m", null, MessageState.COMPLETED, MessageState.SENT, "confirmed"));
        assertThrows(
                IllegalStateException.class,
                () -> new HistoryStore.Moved("m", "a", DeliveryState.CONSUMED, DeliveryState.DELIVERED, "replayed"));
        assertThrows(
                IllegalArgumentException.class,
                () -> new HistoryStore.Moved("m", "a", MessageState.SENT, DeliveryState.CONSUMED, "mixed"),
                "a move stays within one machine");
        new HistoryStore.Moved("m", "a", null, DeliveryState.DELIVERED, "published"); // a new row
        new HistoryStore.Moved("m", null, MessageState.DEAD, MessageState.SENT, "a late confirm");
    }

    @Test
    void should_open_the_circuit_after_failures_in_a_row_and_close_it_after_a_good_trial() {
        Instant t0 = Instant.parse("2030-01-01T00:00:00Z");
        ProducerGate gate = new ProducerGate(2, 3, Duration.ofSeconds(30));

        for (int i = 0; i < 3; i++) {
            assertTrue(gate.tryAcquire(t0));
            gate.failed("refused", t0);
        }

        assertEquals(Circuit.OPEN, gate.circuit(t0));
        assertFalse(gate.tryAcquire(t0.plusSeconds(29)), "no call while open");
        assertEquals(t0.plusSeconds(30), gate.retryAt(t0.plusSeconds(29), Duration.ofSeconds(1)));
        assertTrue(gate.tryAcquire(t0.plusSeconds(30)), "one trial when half open");
        assertEquals(Circuit.HALF_OPEN, gate.circuit(t0.plusSeconds(30)));
        assertFalse(gate.tryAcquire(t0.plusSeconds(30)), "only one trial at a time");
        gate.failed("still refused", t0.plusSeconds(30));
        assertEquals(Circuit.OPEN, gate.circuit(t0.plusSeconds(31)), "a failed trial opens it again");
        assertTrue(gate.tryAcquire(t0.plusSeconds(60)));
        gate.succeeded();
        assertEquals(Circuit.CLOSED, gate.circuit(t0.plusSeconds(60)));
        assertEquals("still refused", gate.lastError());
    }

    @Test
    void should_limit_calls_in_flight_per_producer() {
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        ProducerGate gate = new ProducerGate(2, 5, Duration.ofSeconds(30));

        assertTrue(gate.tryAcquire(now));
        assertTrue(gate.tryAcquire(now));
        assertFalse(gate.tryAcquire(now), "the bulkhead is full");
        gate.succeeded();
        assertTrue(gate.tryAcquire(now));
        assertEquals(now.plusSeconds(1), gate.retryAt(now, Duration.ofSeconds(1)), "a full bulkhead retries soon");
    }

    @Test
    void should_accept_names_that_make_unambiguous_queue_names() {
        assertEquals("orders", Names.check("topic", "orders"));
        assertEquals("orders.billing", Names.queue("orders", "billing"));
        for (String bad : new String[] {null, "", "a.b", "a::b", "1abc", "a'b", "a b", "x".repeat(64)}) {
            assertThrows(ProblemException.class, () -> Names.check("topic", bad), String.valueOf(bad));
        }
    }

    @Test
    void should_accept_json_payloads_and_property_safe_headers_only() {
        assertEquals("{\"a\":1}", Content.payload("{\"a\":1}", 100));
        assertEquals("\"text\"", Content.payload("\"text\"", 100));
        assertEquals(
                400,
                assertThrows(ProblemException.class, () -> Content.payload("{oops", 100))
                        .status());
        assertEquals(
                413,
                assertThrows(ProblemException.class, () -> Content.payload("\"" + "x".repeat(100) + "\"", 100))
                        .status());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("tenant", "acme");
        assertEquals(headers, Content.decodeHeaders(Content.encodeHeaders(headers)));
        for (String bad : new String[] {"JMSType", "courierX", "_AMQ_DUPL_ID", "a-b", "1a"}) {
            assertThrows(ProblemException.class, () -> Content.encodeHeaders(Map.of(bad, "v")), bad);
        }
    }
}
