package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.courier.access.Caller;
import org.junit.jupiter.api.Test;

/** One caller's waiting receives per queue stay under the limit; others, other queues and trusted callers apart. */
class CallerWaitsTest {

    private static final QueueName ORDERS = QueueName.of("orders");

    private final CallerWaits waits = new CallerWaits();
    private final Caller alice = Caller.of("alice", group -> false);

    @Test
    void should_refuse_a_callers_waits_past_the_limit_and_free_a_place_when_one_ends() {
        Runnable first = waits.enter(ORDERS, alice, 2);
        Runnable second = waits.enter(ORDERS, alice, 2);
        QueueLimitException refused = assertThrows(QueueLimitException.class, () -> waits.enter(ORDERS, alice, 2));
        assertEquals(429, refused.status());

        Runnable bob = waits.enter(ORDERS, Caller.of("bob", group -> false), 2); // another caller
        Runnable elsewhere = waits.enter(QueueName.of("invoices"), alice, 2); // another queue
        for (int i = 0; i < 5; i++) {
            waits.enter(ORDERS, Caller.TRUSTED, 2); // not counted
        }

        first.run();
        Runnable third = waits.enter(ORDERS, alice, 2);
        for (Runnable end : new Runnable[] {second, third, bob, elsewhere}) {
            end.run();
        }
        assertEquals(0, waits.keys(), "nothing is left once every wait ended");
    }
}
