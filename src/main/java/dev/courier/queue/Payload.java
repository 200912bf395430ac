package dev.courier.queue;

import dev.courier.platform.Json;
import dev.courier.platform.ProblemException;
import jakarta.json.JsonException;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** A message's content: JSON (kept as its UTF-8 text) or bytes. Immutable. */
public final class Payload {

    private final PayloadType type;
    private final byte[] bytes;

    private Payload(PayloadType type, byte[] bytes) {
        this.type = Objects.requireNonNull(type, "type is required");
        this.bytes = bytes.clone();
    }

    /** @throws ProblemException 400 when {@code json} is not valid JSON */
    public static Payload json(String json) {
        Objects.requireNonNull(json, "json is required");
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            reader.readValue();
        } catch (JsonException e) {
            throw ProblemException.invalid("payload is not valid JSON");
        }
        return new Payload(PayloadType.JSON, json.getBytes(StandardCharsets.UTF_8));
    }

    public static Payload json(JsonValue json) {
        return new Payload(PayloadType.JSON, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    public static Payload bytes(byte[] bytes) {
        return new Payload(PayloadType.BYTES, Objects.requireNonNull(bytes, "bytes are required"));
    }

    static Payload stored(PayloadType type, byte[] bytes) {
        return new Payload(type, bytes);
    }

    public PayloadType type() {
        return type;
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    int size() {
        return bytes.length;
    }

    /** The JSON text of a JSON payload. */
    public String text() {
        if (type != PayloadType.JSON) {
            throw new IllegalStateException("a bytes payload has no JSON text");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The payload as a JSON value: JSON as itself, bytes as a base64 string. */
    public JsonValue toJson() {
        if (type == PayloadType.JSON) {
            try (JsonReader reader = Json.createReader(new StringReader(text()))) {
                return reader.readValue();
            }
        }
        return Json.createValue(java.util.Base64.getEncoder().encodeToString(bytes));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Payload p && p.type == type && Arrays.equals(p.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return type == PayloadType.JSON ? text() : "bytes[" + bytes.length + "]";
    }

    /** The payload stored in a row's type and bytes columns. */
    static Payload read(java.sql.ResultSet rows, int typeColumn, int bytesColumn) throws java.sql.SQLException {
        return stored(PayloadType.valueOf(rows.getString(typeColumn)), rows.getBytes(bytesColumn));
    }
}
