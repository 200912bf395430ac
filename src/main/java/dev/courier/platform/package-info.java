/**
 * What every capability of Courier stands on: the injectable {@link java.time.Clock}, the fault-injection
 * seam, the schema migrations applied at start-up, the one mapping of errors to RFC 9457 problem bodies (and
 * their rollback without an incident, {@link dev.courier.platform.ProblemsRollBack}), and the retry
 * {@link dev.courier.platform.Backoff} the queue's redeliveries and the reliable service's check-backs share.
 * Nothing here knows about queues or messages.
 */
package dev.courier.platform;
