package dev.courier.reliable;

/** What a protocol call left a message in. */
public record Outcome(String id, MessageState state) {}
