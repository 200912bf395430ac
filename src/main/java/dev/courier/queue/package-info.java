/**
 * The transactional queue: queues stored in the application's own database, with the semantics of Spanner
 * queues. A message sent inside a transaction exists only if that transaction commits; a receiver takes a
 * lease on it; acknowledging deletes exactly one row, fenced by the lease token, so a retried acknowledgement
 * fails and rolls its whole transaction back (at-most-once ack, exactly-once processing); a lease that expires
 * without ack makes the message deliverable again after the queue's backoff; past the queue's attempt limit it
 * is dead, kept with its history until replayed or purged. All state is rows: nothing lives only in memory.
 *
 * <p>Public API: {@link dev.courier.queue.TransactionalQueue} (send, receive, renew, release, ack),
 * {@link dev.courier.queue.Queues} (definitions), {@link dev.courier.queue.DeadLetters} and
 * {@link dev.courier.queue.QueueMessages} (queries). Everything else in the package is internal.
 *
 * <p>Where a change goes: policy (limits, validation, what an operation means) is in those beans, plus
 * {@code Claims} (one claim), {@code WaitingReceive} and {@code Waiters} (waiting without a thread),
 * {@code WakeUps}/{@code WakeUpListener} (waking other servers), {@code Sweeper}/{@code SweepSteps}
 * (housekeeping, one server at a time). SQL is in the stores — {@code MessageStore} (message and key rows),
 * {@code QueueStore} (definitions, counts, turns) — and, where the databases differ (the claim, key
 * registration, the clock), in {@code QueueDialect} and its two implementations; {@code QueueDatabase} gives one
 * database's connections, dialect and time, and {@code QueueDatabases} says which database holds a queue (Courier's
 * own, or an application's: {@code courier.queue.databases}). Dependencies point one way: beans, then stores, then the
 * database; nothing depends back on a bean.
 */
package dev.courier.queue;
