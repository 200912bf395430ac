package dev.courier.platform;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the fields of a JSON request body, each with a precise 400 problem when it has the wrong type or range,
 * so that resources never answer a malformed request with a generic error.
 */
public final class JsonRequest {

    private final JsonObject body;

    private JsonRequest(JsonObject body) {
        this.body = body;
    }

    /** @throws ProblemException 400 when the body is missing or not a JSON object */
    public static JsonRequest of(JsonValue body) {
        if (!(body instanceof JsonObject object)) {
            throw ProblemException.invalid("a JSON object is required as the request body");
        }
        return new JsonRequest(object);
    }

    /**
     * Parses a request body that may be absent: a blank body is an empty object.
     *
     * @throws ProblemException 400 "Malformed request body" when it is not JSON
     */
    public static JsonRequest parse(String body) {
        if (body == null || body.isBlank()) {
            return new JsonRequest(JsonValue.EMPTY_JSON_OBJECT);
        }
        try (var reader = Json.createReader(new java.io.StringReader(body))) {
            return of(reader.readValue());
        } catch (jakarta.json.JsonException e) {
            throw new ProblemException(
                    400, "Malformed request body", "The request body is not valid JSON of the expected shape.");
        }
    }

    public boolean has(String field) {
        return body.containsKey(field) && body.get(field).getValueType() != JsonValue.ValueType.NULL;
    }

    public Optional<JsonValue> value(String field) {
        return has(field) ? Optional.of(body.get(field)) : Optional.empty();
    }

    public Optional<String> string(String field) {
        return value(field).map(v -> {
            if (v instanceof JsonString s) {
                return s.getString();
            }
            throw invalid(field, "a string");
        });
    }

    public Optional<Double> number(String field, double min, double max) {
        return value(field).map(v -> {
            if (v instanceof JsonNumber n && n.doubleValue() >= min && n.doubleValue() <= max) {
                return n.doubleValue();
            }
            throw invalid(field, "a number from " + trim(min) + " to " + trim(max));
        });
    }

    public Optional<Integer> integer(String field, int min, int max) {
        return value(field).map(v -> {
            if (v instanceof JsonNumber n && n.isIntegral() && n.longValue() >= min && n.longValue() <= max) {
                return n.intValue();
            }
            throw invalid(field, "a whole number from " + min + " to " + max);
        });
    }

    /** A duration given in (possibly fractional) seconds. */
    public Optional<Duration> seconds(String field, double min, double max) {
        return number(field, min, max).map(s -> Duration.ofNanos(Math.round(s * 1_000_000_000d)));
    }

    public Optional<Instant> instant(String field) {
        return string(field).map(text -> {
            try {
                return Instant.parse(text);
            } catch (DateTimeParseException e) {
                throw invalid(field, "an ISO-8601 instant such as 2030-01-01T00:00:00Z");
            }
        });
    }

    public Optional<JsonRequest> object(String field) {
        return value(field).map(v -> {
            if (v instanceof JsonObject o) {
                return new JsonRequest(o);
            }
            throw invalid(field, "an object");
        });
    }

    public Optional<Map<String, String>> stringMap(String field) {
        return object(field).map(o -> {
            Map<String, String> map = new LinkedHashMap<>();
            o.body.forEach((name, value) -> {
                if (!(value instanceof JsonString s)) {
                    throw invalid(field + "." + name, "a string");
                }
                map.put(name, s.getString());
            });
            return map;
        });
    }

    public Optional<List<String>> strings(String field) {
        return value(field).map(v -> {
            if (v.getValueType() != JsonValue.ValueType.ARRAY) {
                throw invalid(field, "an array of strings");
            }
            List<String> list = new ArrayList<>();
            for (JsonValue item : v.asJsonArray()) {
                if (!(item instanceof JsonString s)) {
                    throw invalid(field, "an array of strings");
                }
                list.add(s.getString());
            }
            return list;
        });
    }

    private static ProblemException invalid(String field, String expected) {
        return ProblemException.invalid("'" + field + "' must be " + expected);
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
