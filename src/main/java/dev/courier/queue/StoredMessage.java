package dev.courier.queue;

import java.time.Instant;
import java.util.Map;

/** One row of {@code courier_message} as read, for the code that inspects or fences on it. */
record StoredMessage(
        String id,
        QueueName queue,
        String state,
        Instant deliverAt,
        int attempt,
        String leaseToken,
        Instant leaseExpiresAt,
        long version,
        String key,
        Payload payload,
        Map<String, String> headers,
        Instant createdAt,
        String lastError,
        Instant deadAt,
        String history) {

    MessageState observedAt(Instant now) {
        return MessageState.observe(state, deliverAt, leaseExpiresAt, now);
    }
}
