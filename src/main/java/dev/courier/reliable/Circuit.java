package dev.courier.reliable;

/**
 * The circuit Courier keeps per producer for its check-back calls: {@code CLOSED} calls go through;
 * after {@code courier.reliable.circuit-failures} failures in a row it is {@code OPEN} and the producer is
 * not called for {@code courier.reliable.circuit-open}; then {@code HALF_OPEN} lets one trial call through,
 * whose success closes it and whose failure opens it again.
 */
public enum Circuit {
    CLOSED,
    OPEN,
    HALF_OPEN
}
