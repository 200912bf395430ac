package dev.courier.queue;

import java.time.Instant;

/** One failed delivery in a message's history: its lease expired ({@code EXPIRED}) or it was {@code RELEASED}. */
public record FailedAttempt(int attempt, Instant failedAt, String kind, String reason) {}
