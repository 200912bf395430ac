package dev.courier.access;

import dev.courier.platform.ProblemException;

/**
 * 403: the caller holds the role, but the queue's or topic's grants, or the principals of the producer or subscriber
 * it acts for, do not name it or any of its groups.
 */
public class NotGrantedException extends ProblemException {

    private static final long serialVersionUID = 1L;

    public NotGrantedException(Caller caller, Action action, String resource) {
        this("'" + caller.name() + "' is not granted " + action.field() + " on " + resource);
    }

    private NotGrantedException(String detail) {
        super(403, "Not granted", detail);
    }

    /** 403: the caller is not among the principals registered for {@code what} ("producer orders"). */
    static NotGrantedException actingFor(Caller caller, String what) {
        return new NotGrantedException("'" + caller.name() + "' may not act for " + what);
    }
}
