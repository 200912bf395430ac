package dev.courier.testing;

import jakarta.json.JsonObject;
import java.util.function.Predicate;

/** The audit trail as an admin reads it ({@code GET /api/audit}), for tests that check what was recorded. */
public final class AuditEntries {

    private AuditEntries() {}

    /** The newest of the last 1,000 entries that {@code matches}; fails the test when there is none. */
    public static JsonObject newest(Http admin, Predicate<JsonObject> matches) {
        return admin.get("api/audit?limit=1000").json().getJsonArray("entries").getValuesAs(JsonObject.class).stream()
                .filter(matches)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no such entry in the audit trail"));
    }
}
