package dev.courier.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Audit entry ids sort in the order they were made, many within one millisecond included. */
class EntryIdsTest {

    @Test
    void ids_made_in_a_row_sort_in_that_order_as_text_and_are_version_7_uuids() {
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) { // thousands within one millisecond
            made.add(EntryIds.next());
        }
        List<String> sorted = new ArrayList<>(made);
        sorted.sort(null);
        assertEquals(made, sorted);
        assertEquals(made.size(), made.stream().distinct().count());
        UUID first = UUID.fromString(made.get(0));
        assertEquals(7, first.version());
        assertEquals(2, first.variant());
        long millis = first.getMostSignificantBits() >>> 16;
        assertEquals(System.currentTimeMillis(), millis, 60_000, "the time comes first");
    }
}
