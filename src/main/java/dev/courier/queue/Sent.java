package dev.courier.queue;

import java.time.Instant;

/**
 * The result of a send: the message id and when it becomes deliverable. {@code duplicate} is true when the
 * idempotency key was already used within its window: nothing was created and {@code id} is the original's.
 */
public record Sent(String id, Instant deliverAt, boolean duplicate) {}
