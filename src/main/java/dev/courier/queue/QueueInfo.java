package dev.courier.queue;

import java.time.Duration;
import java.util.Optional;

/**
 * A queue's definition with what it holds at the time of asking: live messages (scheduled, deliverable or
 * leased), dead messages, and the age of its oldest live message.
 */
public record QueueInfo(QueueSpec spec, long depth, long dead, Optional<Duration> oldestAge) {
}
