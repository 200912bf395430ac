package dev.courier.audit;

import java.time.Instant;

/**
 * One administrative call: who ({@code principal}), what ({@code action}, e.g. {@code queue.purge}), on what
 * ({@code target}: the request's method and path with its query) and how it ended ({@code status}: the HTTP
 * status of the answer); {@code detail}, when there is one, is what it asked for (the request's body: the grants
 * set, the definition given) or, for a failed login, how many failures its address has had.
 */
public record AuditEntry(
        String id, Instant at, String principal, String action, String target, int status, String detail) {}
