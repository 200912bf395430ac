package dev.courier.queue;

import java.time.Instant;

/** One finished sweep of the queue's housekeeping, in database time: who swept, when, and what it changed. */
public record SweepRun(String owner, Instant started, Instant finished, int movedDead, int purged) {}
