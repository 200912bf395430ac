package dev.courier.queue;

import java.time.Instant;

/** A lease after renewal: the same token, a later expiry. */
public record Lease(String token, Instant expiresAt) {}
