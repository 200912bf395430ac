package dev.courier.queue;

import java.time.Instant;
import java.util.Map;

/**
 * A message handed to a receiver under a lease: only the holder of {@code leaseToken} may ack, renew or release
 * it, and no other receiver gets it until the lease ends. {@code attempt} counts deliveries, 1 for the first.
 */
public record Delivery(
        String id,
        QueueName queue,
        Payload payload,
        int attempt,
        String leaseToken,
        Instant leaseExpiresAt,
        Map<String, String> headers) {}
