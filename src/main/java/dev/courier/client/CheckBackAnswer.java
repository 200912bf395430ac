package dev.courier.client;

/** What a producer answers Courier's check-back: {@code {"status": "<name>"}}. */
public enum CheckBackAnswer {
    /** The local transaction committed: Courier confirms the message. */
    COMMITTED,
    /** The local transaction rolled back (or never ran): Courier cancels the message. */
    ROLLED_BACK,
    /** Not known yet: Courier asks again later. */
    PENDING;

    /** The answer's JSON body. */
    public String json() {
        return "{\"status\":\"" + name() + "\"}";
    }
}
