package dev.courier.queue;

import dev.courier.platform.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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

    /** A failed attempt to append to a message's history. */
    record Failure(String messageId, int attempt, Instant at, String kind, String reason) {}

    /**
     * Appends failed attempts to their messages' history, in place (no second table: nothing for Derby to lock
     * beyond the row the caller already holds). The history stops growing near the column's limit; the last
     * error is always on the row.
     */
    static void record(Connection connection, List<Failure> failures) throws SQLException {
        if (failures.isEmpty()) {
            return;
        }
        // The guard counts the new line too (a reason escaped into JSON can be several times its length).
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_message SET history = "
                + "CASE WHEN LENGTH(COALESCE(history, '')) + ? > " + MAX_LENGTH + " THEN history "
                + "ELSE COALESCE(history, '') || ? END WHERE id = ?")) {
            for (Failure failure : failures) {
                String line = History.line(
                        new FailedAttempt(failure.attempt(), failure.at(), failure.kind(), failure.reason()));
                update.setInt(1, line.length());
                update.setString(2, line);
                update.setString(3, failure.messageId());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

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
