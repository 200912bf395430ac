package dev.courier.queue;

import java.util.Objects;

/** One message of a batch send: its payload and how to send it. */
public record Outgoing(Payload payload, SendOptions options) {

    public Outgoing {
        Objects.requireNonNull(payload, "payload is required");
        options = options == null ? SendOptions.now() : options;
    }

    public static Outgoing of(Payload payload) {
        return new Outgoing(payload, SendOptions.now());
    }
}
