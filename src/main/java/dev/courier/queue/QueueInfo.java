package dev.courier.queue;

import java.time.Duration;
import java.util.Optional;

/**
 * A queue's definition with what it holds at the time of asking: live messages (scheduled, deliverable or
 * leased), dead messages, and how long its longest-waiting deliverable message has been due (empty when none
 * is due: the measure of receivers falling behind, read from the first entry of an index).
 */
public record QueueInfo(QueueSpec spec, long depth, long dead, Optional<Duration> oldestAge) {
}
