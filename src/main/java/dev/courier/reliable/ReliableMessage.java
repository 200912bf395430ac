package dev.courier.reliable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A reliable message as stored: its state, its per-subscriber ledger and its history.
 *
 * @param payload the JSON text of the payload
 * @param checks how many check-backs were made
 * @param deliveries empty until the message is sent
 * @param history oldest first; empty in query results
 */
public record ReliableMessage(
        String id,
        String topic,
        String producer,
        MessageState state,
        String payload,
        Map<String, String> headers,
        Duration checkBackAfter,
        Instant deliverAt,
        int checks,
        Instant nextCheckAt,
        String lastError,
        Instant createdAt,
        Instant updatedAt,
        List<DeliveryRecord> deliveries,
        List<Change> history) {}
