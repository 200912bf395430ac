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
 * PostgreSQL restarts under a running Courier: requests meanwhile fail cleanly (problem bodies, no stack
 * traces), the pool recovers by itself, and a message committed before the restart is still there after it.
 * PostgreSQL profile only; restarts the local cluster with pg_ctlcluster (as CI, root, may).
 */
@ExtendWith(ArquillianExtension.class)
class DatabaseRestartIT {

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_recover_after_a_database_restart_with_committed_messages_intact() throws Exception {
        assumeTrue("postgres".equals(System.getProperty("courier.db")), "PostgreSQL profile only");
        String queue = "restart" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        assertEquals(201, http.put("api/queues/" + queue, "{}").status());
        String id = http.post("api/queues/" + queue + "/messages", "{\"payload\": \"before\"}").json().getString("id");

        restartPostgres();

        Http.Response first = http.get("api/queues/" + queue);
        assertEquals(true, first.status() == 200 || first.contentType().equals("application/problem+json"),
                "a request on a stale connection fails with a problem body: " + first);
        JsonObject received = Eventually.await("Courier receiving again", Duration.ofSeconds(60), () -> {
            Http.Response response = http.post("api/queues/" + queue + "/receive", "{\"max\": 10}");
            if (response.status() != 200) {
                return Optional.empty();
            }
            List<JsonObject> messages = response.json().getJsonArray("messages").getValuesAs(JsonObject.class);
            return messages.isEmpty() ? Optional.empty() : Optional.of(messages.get(0));
        });
        assertEquals(id, received.getString("id"), "the message committed before the restart survived it");
        assertEquals(204, http.delete("api/queues/" + queue + "/messages/" + id + "?leaseToken="
                + received.getString("leaseToken")).status());
        Eventually.until("ready again", Duration.ofSeconds(30), () -> http.get("health/ready").status() == 200);
        http.delete("api/queues/" + queue);
    }

    private static void restartPostgres() throws Exception {
        Process restart = new ProcessBuilder("bash", "-c",
                "pg_ctlcluster $(pg_lsclusters -h | awk 'NR==1 {print $1, $2}') restart").inheritIO().start();
        if (!restart.waitFor(60, TimeUnit.SECONDS) || restart.exitValue() != 0) {
            throw new IllegalStateException("could not restart PostgreSQL");
        }
    }
}
