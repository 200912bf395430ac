package dev.courier.reliable;

import java.time.Duration;

/**
 * A named subscriber of a topic, with its own durable broker queue {@code topic.name} on the multicast
 * address {@code topic}.
 *
 * @param retryLimit redeliveries after the first delivery before the delivery is dead
 * @param deliveryTimeout how long Courier waits for the subscriber's report before it redelivers
 */
public record Subscriber(String topic, String name, int retryLimit, Duration deliveryTimeout) {

    /** The broker queue that holds this subscriber's messages. */
    public String queue() {
        return Names.queue(topic, name);
    }
}
