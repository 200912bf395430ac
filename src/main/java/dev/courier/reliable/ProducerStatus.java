package dev.courier.reliable;

/**
 * A producer and how its check-backs go: the circuit Courier keeps for it on this server, its pending messages,
 * those whose check-back is due, and the last check-back error.
 */
public record ProducerStatus(Producer producer, Circuit circuit, long pending, long checksDue, String lastError) {}
