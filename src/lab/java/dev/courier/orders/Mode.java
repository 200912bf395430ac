package dev.courier.orders;

import java.util.Locale;

/** The mechanism that carries an order from the orders service to the inventory service. */
public enum Mode {
    /** One XA transaction over the orders database, the inventory database and the broker. */
    XA,
    /** Courier's reliable message service: prepare, local commit with a barrier, confirm. */
    RMS,
    /** A transactional queue in the orders database, sent with the queue library in the order's transaction. */
    QUEUE;

    /** @throws OrderProblem 400 for anything but xa, rms or queue */
    public static Mode of(String text) {
        for (Mode mode : values()) {
            if (mode.name().equalsIgnoreCase(text == null ? "" : text.strip())) {
                return mode;
            }
        }
        throw OrderProblem.invalid("'mode' must be one of xa, rms, queue");
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
