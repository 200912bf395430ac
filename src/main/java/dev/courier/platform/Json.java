package dev.courier.platform;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.spi.JsonProvider;
import java.io.Reader;

/**
 * JSON-P's factory methods, on a provider looked up once. {@code jakarta.json.Json} looks its provider up on every
 * call (a {@code ServiceLoader} search through the class loaders): in a profile of the queue's REST path that
 * search was the largest single cost of building an answer. Use this class wherever {@code jakarta.json.Json}
 * would be used.
 */
public final class Json {

    private static final JsonProvider PROVIDER = JsonProvider.provider();

    private Json() {}

    public static JsonObjectBuilder createObjectBuilder() {
        return PROVIDER.createObjectBuilder();
    }

    /** A builder that starts with the members of {@code object}. */
    public static JsonObjectBuilder createObjectBuilder(JsonObject object) {
        return PROVIDER.createObjectBuilder(object);
    }

    public static JsonArrayBuilder createArrayBuilder() {
        return PROVIDER.createArrayBuilder();
    }

    public static JsonReader createReader(Reader reader) {
        return PROVIDER.createReader(reader);
    }

    public static JsonString createValue(String value) {
        return PROVIDER.createValue(value);
    }
}
