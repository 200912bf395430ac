package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Queue names, lease tokens and the stored history: the small values the queue is built from. */
class QueueValuesTest {

    @Test
    void should_accept_names_by_the_rule_and_refuse_others() {
        assertEquals("a", QueueName.of("a").value());
        assertEquals("Orders_2", QueueName.of("Orders_2").value());
        QueueName.of("q" + "x".repeat(62));
        for (String bad : new String[] {null, "", "2x", "_x", "a-b", "a b", "a;drop table", "q" + "x".repeat(63)}) {
            assertThrows(InvalidQueueNameException.class, () -> QueueName.of(bad), String.valueOf(bad));
        }
    }

    @Test
    void should_name_the_message_in_its_lease_token() {
        String id = UUID.randomUUID().toString();
        String token = LeaseToken.of(id, LeaseToken.nonce());
        assertEquals(id, LeaseToken.messageId(token));
        assertThrows(StaleLeaseException.class, () -> LeaseToken.messageId("nonsense"));
        assertThrows(StaleLeaseException.class, () -> LeaseToken.messageId(null));
    }

    @Test
    void should_read_back_the_history_it_wrote() {
        FailedAttempt expired =
                new FailedAttempt(1, Instant.parse("2030-01-01T00:00:10Z"), History.EXPIRED, "lease expired");
        FailedAttempt released = new FailedAttempt(2, Instant.parse("2030-01-01T00:01:00Z"), History.RELEASED, null);

        assertEquals(List.of(expired, released), History.parse(History.line(expired) + History.line(released)));
        assertEquals(List.of(), History.parse(null));
    }
}
