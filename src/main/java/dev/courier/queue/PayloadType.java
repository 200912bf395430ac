package dev.courier.queue;

/** What a message's payload bytes are: UTF-8 JSON text, or opaque bytes. */
public enum PayloadType {
    JSON,
    BYTES
}
