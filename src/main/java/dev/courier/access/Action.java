package dev.courier.access;

import java.util.Locale;

/** What a grant allows on a queue or topic. */
public enum Action {

    /** Send to a queue; prepare, confirm and cancel messages of a topic. */
    SEND,

    /** Receive a queue's messages or read them; report a topic's deliveries consumed or failed. */
    CONSUME;

    /** The name in JSON and in storage: {@code send}, {@code consume}. */
    public String field() {
        return name().toLowerCase(Locale.ROOT);
    }
}
