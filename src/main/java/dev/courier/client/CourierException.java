package dev.courier.client;

/**
 * A call to Courier that did not succeed: no answer, or an error status. {@link #status()} is the HTTP status
 * (0 when there was no answer); {@link #getMessage()} carries Courier's problem detail when it sent one.
 */
public class CourierException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    public CourierException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
