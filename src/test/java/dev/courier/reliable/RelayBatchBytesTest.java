package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How much one relay batch carries ({@link RelayBatches#withinBytes}): its entries in order while their payloads
 * times their copies stay within the bound, and always the first, however large, so that no entry is stuck.
 */
class RelayBatchBytesTest {

    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");

    @Test
    void a_batch_stops_before_the_entry_that_would_carry_it_past_its_bytes() {
        List<OutboxStore.Entry> claimed = List.of(entry("e1", 100), entry("e2", 100), entry("e3", 100));
        Map<String, List<OutboxStore.Target>> targets =
                Map.of("e1", copies(3), "e2", copies(3), "e3", List.of()); // e3: a redelivery nobody waits for

        assertEquals(List.of("e1", "e2", "e3"), ids(RelayBatches.withinBytes(claimed, targets, 700)));
        assertEquals(List.of("e1", "e2"), ids(RelayBatches.withinBytes(claimed, targets, 699)));
        assertEquals(List.of("e1"), ids(RelayBatches.withinBytes(claimed, targets, 599)));
        assertEquals(List.of("e1"), ids(RelayBatches.withinBytes(claimed, targets, 10)), "the first goes alone");
    }

    private static List<OutboxStore.Target> copies(int n) {
        return java.util.stream.IntStream.range(0, n)
                .mapToObj(i -> new OutboxStore.Target("s" + i, 1000))
                .toList();
    }

    private static List<String> ids(List<OutboxStore.Entry> entries) {
        return entries.stream().map(OutboxStore.Entry::id).toList();
    }

    private static OutboxStore.Entry entry(String id, int payloadChars) {
        return new OutboxStore.Entry(
                id,
                null,
                1,
                new MessageStore.MessageRow(
                        "m-" + id,
                        "orders",
                        "shop",
                        MessageState.SENT,
                        "x".repeat(payloadChars),
                        null,
                        10_000,
                        null,
                        0,
                        null,
                        null,
                        1,
                        NOW,
                        NOW));
    }
}
