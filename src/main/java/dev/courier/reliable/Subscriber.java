package dev.courier.reliable;

import dev.courier.access.Principals;
import java.time.Duration;

/**
 * A named subscriber of a topic, with its own durable broker queue {@code topic.name} on the multicast
 * address {@code topic}.
 *
 * @param retryLimit redeliveries after the first delivery before the delivery is dead
 * @param deliveryTimeout how long Courier waits for the subscriber's report before it redelivers
 * @param principals who may report its deliveries consumed or failed besides admins
 */
public record Subscriber(String topic, String name, int retryLimit, Duration deliveryTimeout, Principals principals) {

    /** The broker queue that holds this subscriber's messages. */
    public String queue() {
        return Names.queue(topic, name);
    }
}
