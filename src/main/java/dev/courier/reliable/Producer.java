package dev.courier.reliable;

import dev.courier.access.Principals;
import java.net.URI;
import java.time.Instant;

/**
 * An upstream application registered with Courier.
 *
 * @param checkBackUrl asked {@code GET {checkBackUrl}?id=…} about pending messages past their timeout
 * @param notificationUrl told (POST) about dead messages and dead deliveries; null for none
 * @param principals who may prepare, confirm and cancel its messages besides admins
 */
public record Producer(String name, URI checkBackUrl, URI notificationUrl, Principals principals, Instant createdAt) {}
