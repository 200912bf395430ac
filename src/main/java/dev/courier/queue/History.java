package dev.courier.queue;

import dev.courier.platform.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A message's failed attempts as stored on its row: one JSON object per line. */
final class History {

    static final String EXPIRED = "EXPIRED";
    static final String RELEASED = "RELEASED";
    /** The longest history kept, in characters: the size of the column on Derby ({@code VARCHAR(32000)}). */
    static final int MAX_LENGTH = 32000;

    private History() {}

    static String line(FailedAttempt attempt) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("attempt", attempt.attempt())
                .add("failedAt", attempt.failedAt().toString())
                .add("kind", attempt.kind());
        if (attempt.reason() != null) {
            json.add("reason", attempt.reason());
        }
        return json.build() + "\n";
    }

    static List<FailedAttempt> parse(String history) {
        List<FailedAttempt> attempts = new ArrayList<>();
        if (history == null) {
            return attempts;
        }
        for (String line : history.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            try (JsonReader reader = Json.createReader(new StringReader(line))) {
                JsonObject json = reader.readObject();
                attempts.add(new FailedAttempt(
                        json.getInt("attempt"),
                        Instant.parse(json.getString("failedAt")),
                        json.getString("kind"),
                        json.getString("reason", null)));
            }
        }
        return attempts;
    }
}
