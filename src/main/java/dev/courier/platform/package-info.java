/**
 * What every capability of Courier stands on: the injectable {@link java.time.Clock}, the fault-injection
 * seam, the schema migrations applied at start-up and the one mapping of errors to RFC 9457 problem bodies.
 * Nothing here knows about queues or messages.
 */
package dev.courier.platform;
