package dev.courier.queue;

import dev.courier.platform.ProblemException;

/** A queue name that breaks the naming rule of {@link QueueName}. HTTP 400. */
public class InvalidQueueNameException extends ProblemException {

    private static final long serialVersionUID = 1L;

    public InvalidQueueNameException(String name) {
        super(
                400,
                "Invalid queue name",
                "queue name " + (name == null ? "(missing)" : "'" + abbreviate(name) + "'")
                        + " must be a letter followed by up to 62 letters, digits or underscores");
    }

    private static String abbreviate(String name) {
        return name.length() > 80 ? name.substring(0, 80) + "…" : name;
    }
}
