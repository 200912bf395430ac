package dev.courier.queue;

import dev.courier.platform.ProblemException;

/** The named queue does not exist. HTTP 404. */
public class QueueNotFoundException extends ProblemException {

    private static final long serialVersionUID = 1L;

    public QueueNotFoundException(QueueName name) {
        super(404, "Queue not found", "there is no queue " + name);
    }
}
