package dev.courier.reliable;

import java.net.URI;
import java.time.Instant;

/**
 * An upstream application registered with Courier.
 *
 * @param checkBackUrl asked {@code GET {checkBackUrl}?id=…} about pending messages past their timeout
 * @param notificationUrl told (POST) about dead messages and dead deliveries; null for none
 */
public record Producer(String name, URI checkBackUrl, URI notificationUrl, Instant createdAt) {}
