package dev.courier.queue.jdbc;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How to send one message: its JSON payload, a delay before it may be delivered, an idempotency key (a second
 * send with the key within the window answers the first's id and writes nothing), headers.
 */
public record Send(String payload, Duration delay, String key, Map<String, String> headers) {

    public Send {
        Objects.requireNonNull(payload, "payload is required (JSON text)");
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** A message deliverable at once, no key, no headers. */
    public static Send of(String payload) {
        return new Send(payload, null, null, Map.of());
    }

    public Send after(Duration delay) {
        return new Send(payload, delay, key, headers);
    }

    public Send withKey(String key) {
        return new Send(payload, delay, key, headers);
    }

    public Send withHeaders(Map<String, String> headers) {
        return new Send(payload, delay, key, headers);
    }
}
