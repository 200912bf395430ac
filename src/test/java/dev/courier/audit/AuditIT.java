package dev.courier.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Administrative calls are recorded with who made them, on what, and how they ended; admins read them back. */
@ExtendWith(ArquillianExtension.class)
class AuditIT {

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_record_who_did_what_to_which_queue_and_how_it_ended() {
        String queue = "audit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Instant before = Instant.now().minus(Duration.ofMinutes(5));
        assertEquals(201, http.put("api/queues/" + queue, "{}").status());
        assertEquals(200, http.delete("api/queues/" + queue + "/dead").status());
        assertEquals(204, http.delete("api/queues/" + queue).status());
        assertEquals(
                404, http.delete("api/queues/" + queue + "/dead?id=x").status(), "a purge of a queue that is gone");
        assertEquals(200, http.as("consumer").get("api/queues").status(), "reading is not administration");

        List<JsonObject> mine =
                http.get("api/audit?limit=1000").json().getJsonArray("entries").getValuesAs(JsonObject.class).stream()
                        .filter(e -> e.getString("target").contains(queue))
                        .toList();
        assertEquals(
                List.of(
                        "queue.dead.purge 404 DELETE /api/queues/" + queue + "/dead?id=x",
                        "queue.drop 204 DELETE /api/queues/" + queue,
                        "queue.dead.purge 200 DELETE /api/queues/" + queue + "/dead",
                        "queue.define 201 PUT /api/queues/" + queue),
                mine.stream()
                        .map(e -> e.getString("action") + " " + e.getInt("status") + " " + e.getString("target"))
                        .toList(),
                "newest first");
        for (JsonObject entry : mine) {
            assertEquals("admin", entry.getString("principal"));
            Instant at = Instant.parse(entry.getString("at"));
            assertTrue(at.isAfter(before), entry::toString);
        }

        String oldest = mine.get(mine.size() - 1).getString("at");
        List<JsonObject> older = http.get("api/audit?before=" + oldest)
                .json()
                .getJsonArray("entries")
                .getValuesAs(JsonObject.class);
        assertTrue(older.stream().noneMatch(e -> e.getString("target").contains(queue)), "the next page is older");
    }

    @Test
    void should_page_through_every_entry_once_newest_first_with_the_next_cursor() {
        String queue =
                "auditpage_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        for (int i = 0; i < 5; i++) {
            assertEquals(
                    404, http.delete("api/queues/" + queue + "/dead?id=" + i).status());
        }
        List<String> seen = new java.util.ArrayList<>();
        List<String> ids = new java.util.ArrayList<>();
        String after = null;
        do {
            JsonObject page = http.get("api/audit?limit=2" + (after == null ? "" : "&after=" + after))
                    .json();
            for (JsonObject e : page.getJsonArray("entries").getValuesAs(JsonObject.class)) {
                ids.add(e.getString("id"));
                if (e.getString("target").contains(queue)) {
                    seen.add(e.getString("target")
                            .substring(e.getString("target").length() - 1));
                }
            }
            after = page.containsKey("next") ? page.getString("next") : null;
        } while (after != null && seen.size() < 5);
        assertEquals(List.of("4", "3", "2", "1", "0"), seen, "each once, newest first");
        assertEquals(ids.size(), new java.util.HashSet<>(ids).size(), "no entry on two pages");
    }

    @Test
    void should_record_what_a_grant_change_granted_and_the_two_phase_probe_like_any_administrative_call() {
        String topic = "audit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String grants = "{\"grants\": {\"consume\": [\"group:payments\"], \"send\": [\"user:alice\"]}}";
        assertEquals(200, http.put("api/topics/" + topic, grants).status());
        JsonObject granted = entry(e -> e.getString("action").equals("topic.define")
                && e.getString("target").equals("PUT /api/topics/" + topic));
        assertTrue(granted.getString("detail").contains("group:payments"), granted::toString);
        assertTrue(granted.getString("detail").contains("user:alice"), granted::toString);

        assertEquals(
                201,
                http.post("api/twophase/probes", "{\"body\": \"" + topic + "\"}")
                        .status());
        JsonObject probe = entry(e -> e.getString("action").equals("xa.probe")
                && e.getString("detail", "").contains(topic));
        assertTrue(probe.getString("detail").contains(topic), probe::toString);
        assertEquals("admin", probe.getString("principal"));
    }

    @Test
    void should_purge_entries_older_than_the_cutoff_and_keep_the_rest() throws InterruptedException {
        String old = "audit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String recent = "audit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(201, http.put("api/queues/" + old, "{}").status());
        Thread.sleep(20); // the two entries' times differ
        assertEquals(201, http.put("api/queues/" + recent, "{}").status());
        http.delete("api/queues/" + old);
        http.delete("api/queues/" + recent);
        String cutoff = entry(recent, "queue.define").getString("at");

        int purged =
                http.post("api/test/audit/purge?before=" + cutoff, "").json().getInt("purged");

        assertTrue(purged >= 1, "at least the older definition was purged: " + purged);
        List<String> left =
                http.get("api/audit?limit=1000").json().getJsonArray("entries").getValuesAs(JsonObject.class).stream()
                        .map(e -> e.getString("target"))
                        .toList();
        assertTrue(
                left.stream().noneMatch(t -> t.endsWith("/" + old) && !t.startsWith("DELETE")),
                "the entry before the cutoff is gone: " + left);
        assertTrue(left.contains("PUT /api/queues/" + recent), "the entry at the cutoff is kept");
    }

    private JsonObject entry(String queue, String action) {
        return entry(e ->
                e.getString("action").equals(action) && e.getString("target").endsWith("/" + queue));
    }

    private JsonObject entry(java.util.function.Predicate<JsonObject> matches) {
        return dev.courier.testing.AuditEntries.newest(http, matches);
    }

    @Test
    void should_answer_400_for_a_bad_page() {
        assertEquals(400, http.get("api/audit?limit=0").status());
        assertEquals(400, http.get("api/audit?limit=1001").status());
        assertEquals(400, http.get("api/audit?before=yesterday").status());
        Http.Response forged = http.get("api/audit?after=not-a-cursor");
        assertEquals(400, forged.status(), forged::toString);
        assertEquals("'after' must be the 'next' of a page", forged.json().getString("detail"));
        assertEquals(403, http.as("producer").get("api/audit").status());
    }

    @Test
    void should_run_the_retention_on_the_server_holding_its_turn_only() {
        // Free or this server's: it purges. Then another server takes the turn once this one's has expired.
        assertTrue(http.post("api/test/audit/retention", "").json().containsKey("purged"));
        assertEquals(
                false,
                http.post("api/test/turns/audit.retention?owner=another-server&seconds=600", "")
                        .json()
                        .getBoolean("taken"),
                "this server holds the turn for half an hour");
        http.post("api/test/clock/advance?seconds=1801", "");
        assertTrue(http.post("api/test/turns/audit.retention?owner=another-server&seconds=600", "")
                .json()
                .getBoolean("taken"));

        assertEquals(
                false,
                http.post("api/test/audit/retention", "").json().getBoolean("turn"),
                "another server holds the turn: this one does not purge");
        http.post("api/test/clock/advance?seconds=601", "");
        assertTrue(
                http.post("api/test/audit/retention", "").json().containsKey("purged"),
                "the other server's turn expired: this one purges again");
    }
}
