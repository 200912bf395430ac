package dev.courier.access;

import dev.courier.platform.ProblemException;

/** 403: the caller holds the role, but the queue's or topic's grants do not name it or any of its groups. */
public class NotGrantedException extends ProblemException {

    private static final long serialVersionUID = 1L;

    public NotGrantedException(Caller caller, Action action, String resource) {
        super(403, "Not granted", "'" + caller.name() + "' is not granted " + action.field() + " on " + resource);
    }
}
