package dev.courier.reliable;

import dev.courier.platform.Columns;
import dev.courier.platform.Json;
import dev.courier.platform.ProblemException;
import jakarta.json.JsonException;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Payloads and headers of reliable messages: a payload is JSON text; headers become JMS string properties, so
 * their names must be Java identifiers and must not take the broker's or Courier's own prefixes.
 */
final class Content {

    static final int MAX_HEADERS = 32;
    private static final int MAX_HEADERS_LENGTH = 8000;
    private static final Pattern HEADER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    private Content() {}

    /** @throws ProblemException 400 when not JSON, 413 when longer than {@code maxBytes} in UTF-8 */
    static String payload(String json, int maxBytes) {
        if (json == null || json.isBlank()) {
            throw ProblemException.invalid("'payload' is required");
        }
        if (json.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            throw new ProblemException(413, "Payload too large", "the payload is larger than " + maxBytes + " bytes");
        }
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            reader.readValue();
        } catch (JsonException e) {
            throw ProblemException.invalid("'payload' must be JSON");
        }
        return json;
    }

    /** @throws ProblemException 400 for a name that is no JMS property name, or too many or too long headers */
    static String encodeHeaders(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        if (headers.size() > MAX_HEADERS) {
            throw ProblemException.invalid("at most " + MAX_HEADERS + " headers are allowed");
        }
        headers.forEach((name, value) -> {
            String lower = name == null ? "" : name.toLowerCase(java.util.Locale.ROOT);
            if (name == null
                    || !HEADER.matcher(name).matches()
                    || lower.startsWith("jms")
                    || lower.startsWith("courier")
                    || lower.startsWith("_amq")) {
                throw ProblemException.invalid("header name '" + name + "' must be a Java identifier of at most 64 "
                        + "characters not starting with JMS, courier or _AMQ");
            }
            if (value == null) {
                throw ProblemException.invalid("header '" + name + "' must be a string");
            }
        });
        String text = Columns.json(headers);
        if (text.length() > MAX_HEADERS_LENGTH) {
            throw ProblemException.invalid("headers take more than " + MAX_HEADERS_LENGTH + " characters as JSON");
        }
        return text;
    }

    static Map<String, String> decodeHeaders(String text) {
        return Columns.map(text);
    }

    /** Cuts an error text to what a column holds. */
    static String error(String text) {
        if (text == null) {
            return null;
        }
        return text.length() <= 1000 ? text : text.substring(0, 997) + "...";
    }
}
