package dev.courier.reliable;

import dev.courier.platform.ProblemException;

/** A message, producer, topic or delivery that does not exist: HTTP 404, nothing written. */
public class UnknownResourceException extends ProblemException {

    private static final long serialVersionUID = 1L;

    UnknownResourceException(String kind, String name) {
        super(404, "Unknown " + kind, "there is no " + kind + " '" + name + "'");
    }
}
