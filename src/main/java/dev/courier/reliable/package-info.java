/**
 * The reliable message service: an upstream application prepares a {@code PENDING} message, runs its local
 * transaction, and confirms; Courier then publishes the message to every subscriber of its topic over ActiveMQ
 * Artemis and keeps a per-subscriber ledger until each subscriber has reported it consumed ({@code COMPLETED}). A
 * pending message whose confirm never came is checked back with its producer ({@link dev.courier.reliable.Reconciler});
 * a subscriber that does not report in time, or reports a failure, gets the message again, alone, until its retry
 * limit, then the delivery is dead and the producer told. Every state is a row and every change is in the history,
 * so a server killed anywhere resumes where it stopped. Duplicates on the wire are possible (at-least-once);
 * consumers remove duplicate effects with the inbox of {@link dev.courier.client.ReliableConsumer}.
 *
 * <p><b>Confirm is one local transaction; an outbox and a relay publish.</b> A confirm (and a check-back that
 * answers COMMITTED, a redelivery, a replay) commits the message's state, its ledger rows and an outbox entry in one
 * transaction on Courier's database: one forced write, no broker, no two-phase commit (that was ~15–20 ms and
 * ~6 forced writes per confirm, slower than the XA baseline the service exists to replace). The {@link
 * dev.courier.reliable.Relay} publishes outbox entries in batches, each one local broker transaction, and then
 * deletes them; a crash between the two publishes a batch again, whose copies the broker drops by their duplicate
 * ids. The wire stays at-least-once (a consumer's lost acknowledgement), and consumers' inboxes remove the
 * duplicate effect. A subscriber's report deadline starts when its copy reached the broker.
 *
 * <p>Public API: {@link dev.courier.reliable.ReliableMessages} (the protocol),
 * {@link dev.courier.reliable.Producers} and {@link dev.courier.reliable.Topics} (registration), and the REST
 * resources under {@code /api/messages}, {@code /api/producers}, {@code /api/topics}.
 *
 * <p>Where a change goes: what an operation means is in {@code Protocol} (its steps) and the beans around it; what
 * settles the rest later is a job each — {@code CheckBacks}, {@code Redeliveries}, {@code Notices}, driven by the
 * one timer of {@link dev.courier.reliable.Reconciler}, their transactions in {@code ReconcileSteps} — and
 * {@link dev.courier.reliable.Retention} (the purge); {@link dev.courier.reliable.Relay} publishes. SQL
 * is in the stores, one per aggregate — {@code ProducerStore} (producers and their secrets), {@code TopicStore}
 * (subscribers, grants), {@code MessageStore} (messages, their lock and moves, check-back claims),
 * {@code LedgerStore} (deliveries), {@code HistoryStore} (every move, checked against its machine),
 * {@code NoticeStore} (notices to producers), {@code OutboxStore} (what the relay owes the broker),
 * {@code RetentionStore} (the purge), and {@code BatchStore} (a batch's set-based statements on PostgreSQL);
 * {@code ReliableDatabase} gives connections, the dialect and what the stores share. Dependencies point one way:
 * beans, then stores, then the database.
 */
package dev.courier.reliable;
