package dev.courier.platform;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Calendar;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TimeZone;

/** How Courier's tables store instants and string maps, in one place for every capability. */
public final class Columns {

    private Columns() {}

    /**
     * The calendar every timestamp is written and read with: UTC. Without it the driver converts through the
     * JVM's zone, and Derby's {@code TIMESTAMP} (no zone) then stores wall-clock times that repeat at the end of
     * daylight saving, so two instants an hour apart read back as one. A new one each call: calendars are not
     * thread-safe.
     */
    public static Calendar utc() {
        return Calendar.getInstance(TimeZone.getTimeZone("UTC"));
    }

    /** An instant as a JDBC timestamp; null stays null. Bind it with {@link #utc()}. */
    public static Timestamp timestamp(Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }

    /** The instant in {@code column}, or null. */
    public static Instant instant(ResultSet rows, int column) throws SQLException {
        Timestamp timestamp = rows.getTimestamp(column, utc());
        return timestamp == null ? null : timestamp.toInstant();
    }

    /** A string map as a JSON object; an empty map is stored as NULL. */
    public static String json(Map<String, String> map) {
        if (map.isEmpty()) {
            return null;
        }
        JsonObjectBuilder json = Json.createObjectBuilder();
        map.forEach(json::add);
        return json.build().toString();
    }

    /** The string map stored by {@link #json}; NULL is the empty map. */
    public static Map<String, String> map(String json) {
        if (json == null) {
            return Map.of();
        }
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            JsonObject object = reader.readObject();
            Map<String, String> map = new LinkedHashMap<>();
            object.forEach((name, value) -> map.put(name, ((JsonString) value).getString()));
            return map;
        }
    }
}
