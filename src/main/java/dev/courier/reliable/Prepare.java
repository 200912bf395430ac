package dev.courier.reliable;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A message to prepare.
 *
 * @param payload JSON text
 * @param checkBackAfter how long after prepare Courier checks back if not confirmed; null for the default
 * @param deliverAt earliest delivery to subscribers; null for at once on confirm
 */
public record Prepare(
        String topic,
        String producer,
        String payload,
        Map<String, String> headers,
        Duration checkBackAfter,
        Instant deliverAt) {

    public Prepare {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static Prepare of(String topic, String producer, String payload) {
        return new Prepare(
                Objects.requireNonNull(topic), Objects.requireNonNull(producer), payload, Map.of(), null, null);
    }
}
