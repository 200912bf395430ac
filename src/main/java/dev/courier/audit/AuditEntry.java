package dev.courier.audit;

import java.time.Instant;

/**
 * One administrative call: who ({@code principal}), what ({@code action}, e.g. {@code queue.purge}), on what
 * ({@code target}: the request's method and path with its query) and how it ended ({@code status}: the HTTP
 * status of the answer).
 */
public record AuditEntry(String id, Instant at, String principal, String action, String target, int status) {}
