package dev.courier.queue;

import java.time.Duration;
import java.util.Optional;

/**
 * A queue's definition with what it holds at the time of asking: live messages ({@code depth}: scheduled,
 * deliverable, leased or waiting out a backoff), of which {@code ready} are deliverable now, dead messages, and
 * how long its longest-waiting deliverable message has been due (empty when none is due: the measure of
 * receivers falling behind, read from the first entry of an index). Every count reads an index, not the table.
 * {@code database} names the database that holds it ({@code courier.queue.databases}; {@code courier}: Courier's).
 */
public record QueueInfo(
        QueueSpec spec, String database, long depth, long ready, long dead, Optional<Duration> oldestAge) {}
