package dev.courier.queue;

import dev.courier.platform.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;

/** Message headers as stored: a JSON object of strings, or NULL for none. */
final class Headers {

    static final int MAX_LENGTH = 8000;

    private Headers() {
    }

    static String encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        JsonObjectBuilder json = Json.createObjectBuilder();
        headers.forEach(json::add);
        String text = json.build().toString();
        if (text.length() > MAX_LENGTH) {
            throw ProblemException.invalid("headers take more than " + MAX_LENGTH + " characters as JSON");
        }
        return text;
    }

    static Map<String, String> decode(String text) {
        if (text == null) {
            return Map.of();
        }
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            JsonObject json = reader.readObject();
            Map<String, String> headers = new LinkedHashMap<>();
            json.forEach((name, value) -> headers.put(name, ((JsonString) value).getString()));
            return headers;
        }
    }
}
