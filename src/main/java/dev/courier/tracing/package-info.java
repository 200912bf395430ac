/**
 * Traces that follow a message: the W3C trace context of the sender is stored with the message, as its
 * {@code traceparent} header, and continued where the message is received or delivered, so one trace shows a
 * message from producer to consumer across the queue, the broker and the subscriber. Spans are made through
 * MicroProfile Telemetry; with its SDK disabled (the default) every call here is a no-op that stores nothing.
 *
 * <p>Public API: {@link dev.courier.tracing.MessageTraces}.
 */
package dev.courier.tracing;
