/**
 * The audit trail: every administrative action (defining and dropping queues, purging and replaying dead
 * letters, resuming and replaying reliable messages, registering producers and subscribers, replacing a
 * producer's secret) is recorded with who did it, when, on what, and how it ended, whether it succeeded or not.
 * Admins read it at {@code GET /api/audit}; entries older than {@code courier.audit.retention} are purged.
 */
package dev.courier.audit;
