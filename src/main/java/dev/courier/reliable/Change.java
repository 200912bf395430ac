package dev.courier.reliable;

import java.time.Instant;

/**
 * One recorded state change of a message ({@code subscriber} null) or of its delivery to one subscriber.
 *
 * @param from null for the first state
 * @param server the Courier server that made the change
 */
public record Change(Instant at, String subscriber, String from, String to, String reason, String server) {}
