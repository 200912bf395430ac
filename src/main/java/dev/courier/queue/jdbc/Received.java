package dev.courier.queue.jdbc;

import java.time.Instant;
import java.util.Map;

/**
 * A message leased to you: acknowledge it with {@link #leaseToken()} in the transaction of the work it asked for.
 * {@code payload} is its JSON text (a bytes payload sent through REST or Java comes as a base64 JSON string, with
 * {@code payloadType} {@code BYTES}); {@code attempt} counts its deliveries, this one included.
 */
public record Received(
        String id,
        String leaseToken,
        int attempt,
        String payload,
        Map<String, String> headers,
        Instant leaseExpiresAt,
        Instant createdAt,
        String payloadType) {}
