package dev.courier.queue.jdbc;

/** A send's outcome: the message's id, or, for a key used within the idempotency window, the original's. */
public record Sent(String id, boolean duplicate) {}
