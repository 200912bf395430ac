package dev.courier.platform;

import jakarta.ejb.ApplicationException;
import java.util.Objects;

/**
 * A failure the caller caused or can act on, with the HTTP status it maps to. The REST layer turns it into an
 * RFC 9457 problem body; Java callers in the same server catch the subclass they care about. Capabilities
 * extend it with typed exceptions (an unknown queue, a stale lease) rather than throwing it directly where a
 * caller would want to tell cases apart.
 *
 * <p>It is an EJB application exception with {@code rollback = true}: thrown from a Courier bean it reaches the
 * caller as itself (not wrapped) and marks the current transaction for rollback, so a call refused half-way
 * never leaves a partial write behind.
 */
@ApplicationException(rollback = true, inherited = true)
public class ProblemException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String title;

    public ProblemException(int status, String title, String detail) {
        super(Objects.requireNonNull(detail, "detail is required"));
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("problem status must be 4xx or 5xx, was " + status);
        }
        this.status = status;
        this.title = Objects.requireNonNull(title, "title is required");
    }

    /** The HTTP status of this problem. */
    public int status() {
        return status;
    }

    /** A short summary of the problem type, the same for every occurrence. */
    public String title() {
        return title;
    }

    /** A URI reference naming the problem type; Courier uses {@code urn:courier:problem:<slug of title>}. */
    public String type() {
        return "urn:courier:problem:" + title.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    }

    /**
     * Extension members of the problem body (RFC 9457 §3.2), such as the current state of a resource a
     * request conflicted with. None by default.
     */
    public java.util.Map<String, String> extensions() {
        return java.util.Map.of();
    }

    /** Shorthand for a 400 with title "Invalid request". */
    public static ProblemException invalid(String detail) {
        return new ProblemException(400, "Invalid request", detail);
    }
}
