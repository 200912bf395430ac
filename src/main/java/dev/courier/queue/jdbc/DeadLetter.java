package dev.courier.queue.jdbc;

import java.time.Instant;
import java.util.Map;

/**
 * A dead message: out of attempts, kept with its payload, its {@code lastError} and {@code history} (a JSON array,
 * one object per failed attempt: {@code attempt}, {@code failedAt}, {@code kind}, {@code reason}) until it is
 * replayed or purged, or older than Courier's {@code courier.queue.dead-retention}.
 */
public record DeadLetter(
        String id,
        int attempt,
        String payload,
        Map<String, String> headers,
        String payloadType,
        String lastError,
        String history,
        Instant createdAt,
        Instant deadAt) {}
