package dev.courier.reliable;

import dev.courier.access.Grants;

/** A topic with its grants ({@link Grants#NONE} when it has none). */
public record TopicGrants(String topic, Grants grants) {}
