package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.courier.access.Caller;
import org.junit.jupiter.api.Test;

/**
 * One caller's waiting receives stay under the limit per queue and under its total over all queues; others and
 * trusted callers apart.
 */
class CallerWaitsTest {

    private static final QueueName ORDERS = QueueName.of("orders");

    private final CallerWaits waits = new CallerWaits();
    private final Caller alice = Caller.of("alice", group -> false);

    @Test
    void should_refuse_a_callers_waits_past_the_limit_and_free_a_place_when_one_ends() {
        Runnable first = waits.enter(ORDERS, alice, 2, 100);
        Runnable second = waits.enter(ORDERS, alice, 2, 100);
        QueueLimitException refused = assertThrows(QueueLimitException.class, () -> waits.enter(ORDERS, alice, 2, 100));
        assertEquals(429, refused.status());

        Runnable bob = waits.enter(ORDERS, Caller.of("bob", group -> false), 2, 100); // another caller
        Runnable elsewhere = waits.enter(QueueName.of("invoices"), alice, 2, 100); // another queue
        for (int i = 0; i < 5; i++) {
            waits.enter(ORDERS, Caller.TRUSTED, 2, 1); // not counted
        }

        first.run();
        Runnable third = waits.enter(ORDERS, alice, 2, 100);
        for (Runnable end : new Runnable[] {second, third, bob, elsewhere}) {
            end.run();
        }
        assertEquals(0, waits.keys(), "nothing is left once every wait ended");
    }

    @Test
    void should_refuse_a_callers_waits_past_its_total_over_all_queues_and_free_both_counts() {
        Runnable first = waits.enter(ORDERS, alice, 2, 3);
        Runnable second = waits.enter(ORDERS, alice, 2, 3);
        Runnable third = waits.enter(QueueName.of("invoices"), alice, 2, 3);
        QueueLimitException refused =
                assertThrows(QueueLimitException.class, () -> waits.enter(QueueName.of("refunds"), alice, 2, 3));
        assertEquals(429, refused.status());
        // refused on its queue's count: the total it took is given back
        third.run();
        assertThrows(QueueLimitException.class, () -> waits.enter(ORDERS, alice, 2, 3));
        Runnable fourth = waits.enter(QueueName.of("refunds"), alice, 2, 3);
        for (Runnable end : new Runnable[] {first, second, fourth}) {
            end.run();
        }
        assertEquals(0, waits.keys(), "nothing is left once every wait ended");
        Runnable again = waits.enter(ORDERS, alice, 2, 1); // the total is back to nothing too
        again.run();
    }
}
