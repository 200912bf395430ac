package dev.courier.reliable;

import java.time.Instant;

/**
 * The ledger row of one message and one subscriber.
 *
 * @param attempts how many times the message was handed to this subscriber's queue
 * @param nextAttemptAt when Courier redelivers unless the subscriber reports first (null once final)
 */
public record DeliveryRecord(
        String subscriber,
        DeliveryState state,
        int attempts,
        int retryLimit,
        String lastError,
        Instant nextAttemptAt,
        Instant consumedAt) {}
