package dev.courier.queue;

import dev.courier.platform.ProblemException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * How to send a message: when it becomes deliverable (now, after a delay, or at an instant — no upper limit),
 * an optional idempotency key, and string headers. Build from {@link #now()}.
 */
public record SendOptions(Instant deliverAt, Duration delay, String key, Map<String, String> headers) {

    static final int MAX_KEY_LENGTH = 200;
    /** The delivery times every supported database can store (Derby's TIMESTAMP ends with year 9999). */
    static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");

    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    /**
     * @throws ProblemException 400 for a negative delay, both a delay and an instant, an instant outside years
     *         1..9999, or a key over 200 chars
     */
    public SendOptions {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        if (deliverAt != null && delay != null) {
            throw ProblemException.invalid("give either a delay or a delivery time, not both");
        }
        if (deliverAt != null && (deliverAt.isBefore(EARLIEST) || deliverAt.isAfter(LATEST))) {
            throw ProblemException.invalid("deliverAt must be between years 1 and 9999");
        }
        if (delay != null && delay.isNegative()) {
            throw ProblemException.invalid("delay must not be negative");
        }
        if (key != null && (key.isBlank() || key.length() > MAX_KEY_LENGTH)) {
            throw ProblemException.invalid("key must be 1 to " + MAX_KEY_LENGTH + " characters");
        }
        headers.forEach((name, value) -> {
            if (name.isBlank()) {
                throw ProblemException.invalid("header names must not be blank");
            }
            Objects.requireNonNull(value, "header values are required");
        });
    }

    /** Deliverable at once, no key, no headers. */
    public static SendOptions now() {
        return new SendOptions(null, null, null, Map.of());
    }

    public SendOptions after(Duration delay) {
        return new SendOptions(null, delay, key, headers);
    }

    public SendOptions at(Instant deliverAt) {
        return new SendOptions(deliverAt, null, key, headers);
    }

    public SendOptions withKey(String key) {
        return new SendOptions(deliverAt, delay, key, headers);
    }

    public SendOptions withHeaders(Map<String, String> headers) {
        return new SendOptions(deliverAt, delay, key, headers);
    }

    /** When the message becomes deliverable, given the time of sending. */
    Instant deliverAt(Instant now) {
        if (deliverAt != null) {
            return deliverAt;
        }
        return delay == null ? now : now.plus(delay);
    }
}
