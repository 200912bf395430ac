package dev.courier.queue;

import dev.courier.platform.ProblemException;

/** A payload over the configured size limit ({@code courier.queue.max-payload-bytes}). HTTP 413. */
public class PayloadTooLargeException extends ProblemException {

    private static final long serialVersionUID = 1L;

    PayloadTooLargeException(int size, int limit) {
        super(413, "Payload too large", "payload of " + size + " bytes exceeds the limit of " + limit + " bytes");
    }
}
