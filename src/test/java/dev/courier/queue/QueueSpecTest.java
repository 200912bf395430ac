package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.platform.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A queue's redelivery delays: its backoff, until its attempts run out. */
class QueueSpecTest {

    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));

    @Test
    void should_give_no_wait_after_the_last_attempt_nor_past_a_lowered_limit() {
        QueueSpec spec = new QueueSpec(QueueName.of("q"), Duration.ofSeconds(10), 3, backoff);
        assertEquals(backoff.delayAfter(2, 0.3), spec.redeliveryDelay(2, 0.3));
        assertEquals(Duration.ZERO, spec.redeliveryDelay(3, 0.3), "the last failure goes straight to dead");
        assertEquals(Duration.ZERO, spec.redeliveryDelay(7, 0.3), "attempts beyond a lowered limit: dead too");
    }
}
