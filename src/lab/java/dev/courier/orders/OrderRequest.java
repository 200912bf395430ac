package dev.courier.orders;

import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.Optional;

/** A request body: a JSON object (an empty body is an empty one), read field by field with a 400 for a bad one. */
final class OrderRequest {

    private final JsonObject body;

    private OrderRequest(JsonObject body) {
        this.body = body;
    }

    /** @throws OrderProblem 400 when the body is not a JSON object */
    static OrderRequest parse(String text) {
        if (text == null || text.isBlank()) {
            return new OrderRequest(JsonValue.EMPTY_JSON_OBJECT);
        }
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            JsonValue value = reader.readValue();
            if (value.getValueType() != JsonValue.ValueType.OBJECT) {
                throw OrderProblem.invalid("the request body must be a JSON object");
            }
            return new OrderRequest(value.asJsonObject());
        } catch (JsonException e) {
            throw new OrderProblem(400, "Malformed request body", "the request body is not JSON");
        }
    }

    /** @throws OrderProblem 400 when present and not a string */
    Optional<String> string(String field) {
        JsonValue value = body.get(field);
        if (value == null || value == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(value instanceof JsonString string)) {
            throw OrderProblem.invalid("'" + field + "' must be a string");
        }
        return Optional.of(string.getString());
    }

    /** @throws OrderProblem 400 when present and not a whole number from min to max */
    Optional<Integer> integer(String field, int min, int max) {
        JsonValue value = body.get(field);
        if (value == null || value == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(value instanceof JsonNumber number)
                || !number.isIntegral()
                || number.bigDecimalValue().compareTo(java.math.BigDecimal.valueOf(min)) < 0
                || number.bigDecimalValue().compareTo(java.math.BigDecimal.valueOf(max)) > 0) {
            throw OrderProblem.invalid("'" + field + "' must be a whole number from " + min + " to " + max);
        }
        return Optional.of(number.intValue());
    }
}
