package dev.courier.queue;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A message as the query and dead-letter APIs show it: its row, its state at the time of asking and the history
 * of its failed attempts. Lease tokens are never shown.
 */
public record MessageView(
        String id,
        QueueName queue,
        MessageState state,
        Instant deliverAt,
        int attempt,
        Instant leaseExpiresAt,
        String key,
        Payload payload,
        Map<String, String> headers,
        Instant createdAt,
        String lastError,
        Instant deadAt,
        List<FailedAttempt> history) {

    static MessageView of(StoredMessage message, Instant now) {
        return new MessageView(
                message.id(),
                message.queue(),
                message.observedAt(now),
                message.deliverAt(),
                message.attempt(),
                message.leaseExpiresAt(),
                message.key(),
                message.payload(),
                message.headers(),
                message.createdAt(),
                message.lastError(),
                message.deadAt(),
                History.parse(message.history()));
    }
}
