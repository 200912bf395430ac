package dev.courier.web;

/**
 * The roles a caller of Courier's API may hold; a caller may hold several. Each REST operation names the roles
 * that may call it ({@code @RolesAllowed}); every path under {@code /api} needs an authenticated caller
 * ({@code WEB-INF/web.xml}), so an operation that names none is still closed to anonymous callers. A user
 * registry group, or a token's {@code groups} claim, of the same name grants the role.
 */
public final class Roles {

    /** Defines and drops queues, topics, subscribers and producers; dead letters, replay, resume, purge; the XA probe. */
    public static final String ADMIN = "courier-admin";

    /** Sends to queues; prepares, confirms and cancels reliable messages. */
    public static final String PRODUCER = "courier-producer";

    /** Receives, renews, releases and acknowledges queue messages; reports reliable deliveries consumed or failed. */
    public static final String CONSUMER = "courier-consumer";

    private Roles() {}
}
