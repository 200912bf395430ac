package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PostgreSQL stops and starts again under a running Courier: meanwhile requests answer 503 problem bodies and
 * readiness is DOWN; then the pool recovers by itself, and a message committed before the outage is still there.
 * PostgreSQL profile only; stops and starts the local cluster serving Courier's database (found by its port) with
 * pg_ctlcluster (as CI, root, may).
 */
@ExtendWith(ArquillianExtension.class)
class DatabaseRestartIT {

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_answer_503_while_the_database_is_down_and_recover_with_committed_messages_intact() throws Exception {
        assumeTrue("postgres".equals(System.getProperty("courier.db")), "PostgreSQL profile only");
        String queue = "restart" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(201, http.put("api/queues/" + queue, "{}").status());
        String id = http.post("api/queues/" + queue + "/messages", "{\"payload\": \"before\"}")
                .json()
                .getString("id");

        postgres("stop");
        try {
            for (int i = 0; i < 3; i++) { // the first meets a stale pooled connection, the next a refused one
                Http.Response refused = http.post("api/queues/" + queue + "/messages", "{\"payload\": \"during\"}");
                assertEquals(503, refused.status(), refused::toString);
                assertEquals("application/problem+json", refused.contentType());
                assertEquals("Database unavailable", refused.json().getString("title"));
            }
            Eventually.until(
                    "readiness DOWN",
                    Duration.ofSeconds(30),
                    () -> Http.management().get("health/ready").status() == 503);
        } finally {
            postgres("start");
        }

        JsonObject received = Eventually.await("Courier receiving again", Duration.ofSeconds(60), () -> {
            Http.Response response = http.post("api/queues/" + queue + "/receive", "{\"max\": 10}");
            if (response.status() != 200) {
                return Optional.empty();
            }
            List<JsonObject> messages = response.json().getJsonArray("messages").getValuesAs(JsonObject.class);
            return messages.isEmpty() ? Optional.empty() : Optional.of(messages.get(0));
        });
        assertEquals(id, received.getString("id"), "the message committed before the restart survived it");
        assertEquals(
                204,
                http.delete("api/queues/" + queue + "/messages/" + id + "?leaseToken="
                                + received.getString("leaseToken"))
                        .status());
        Eventually.until(
                "ready again",
                Duration.ofSeconds(30),
                () -> Http.management().get("health/ready").status() == 200);
        http.delete("api/queues/" + queue);
    }

    private static void postgres(String action) throws Exception {
        // The cluster serving Courier's database, by its port: bin/postgres runs a second one (the lab's inventory).
        String port = System.getProperty("courier.db.port", "5432");
        Process process = new ProcessBuilder(
                        "bash",
                        "-c",
                        "pg_ctlcluster $(pg_lsclusters -h | awk -v p=" + port + " '$3 == p {print $1, $2}') " + action)
                .inheritIO()
                .start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("could not " + action + " PostgreSQL");
        }
    }
}
