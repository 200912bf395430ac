package dev.courier.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.Metrics;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Readiness follows the broker for real: DOWN while it is stopped (saying which dependency, nothing of its
 * exception), UP again once it is back; meanwhile the XA probe answers 503 and writes nothing. However often it is
 * asked, each dependency is probed at most once per cache window.
 */
@ExtendWith(ArquillianExtension.class)
class ReadinessIT {

    private final Http http = Http.server();
    private final Http management = Http.management();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_report_live_started_and_ready_with_database_and_broker_up() {
        assertEquals(200, management.get("health/live").status());
        Http.Response started = management.get("health/started");
        assertEquals(200, started.status(), started::toString);
        assertEquals("UP", check(started.json(), "schema"));
        Http.Response ready = management.get("health/ready");
        assertEquals(200, ready.status(), ready::toString);
        assertEquals("UP", check(ready.json(), "database"));
        assertEquals("UP", check(ready.json(), "broker"));
    }

    @Test
    void should_turn_not_ready_while_the_broker_is_down_and_ready_when_it_returns() {
        Broker.stop();
        try {
            JsonObject down = Eventually.await("readiness DOWN", Duration.ofSeconds(30), () -> {
                Http.Response ready = management.get("health/ready");
                return ready.status() == 503 ? java.util.Optional.of(ready.json()) : java.util.Optional.empty();
            });
            assertEquals("DOWN", check(down, "broker"));
            assertEquals("UP", check(down, "database"), "only the broker is down");
            // An anonymous caller learns which dependency is down, nothing of its exception.
            assertEquals(
                    dev.courier.platform.Json.createObjectBuilder()
                            .add("reason", "the broker does not answer")
                            .build(),
                    find(down, "broker").getJsonObject("data"),
                    down::toString);

            String body = "broker-down-" + java.util.UUID.randomUUID();
            Http.Response refused = http.post("api/twophase/probes", "{\"body\": \"" + body + "\"}");
            assertEquals(503, refused.status(), refused::toString);
            assertEquals("application/problem+json", refused.contentType());
            assertEquals(
                    0,
                    http.get("api/test/probes/count?body=" + body).json().getInt("count"),
                    "the XA transaction rolled back: no row without its message");
        } finally {
            Broker.start();
        }
        Eventually.until(
                "readiness UP",
                Duration.ofSeconds(60),
                () -> management.get("health/ready").status() == 200);
    }

    /**
     * A dependency that stalls does not stall readiness (issue 50, item 9): with the broker frozen (SIGSTOP, its
     * connections open, nothing answered), a probe waits for the broker's call timeout (5 s), and twenty concurrent
     * readiness requests made meanwhile all answer, from what is known, within 2 s each, well inside that wait;
     * readiness turns DOWN once the probe is overdue. Before, every request waited on the probe's lock for the whole
     * call timeout, each holding a thread of the server (a database stall held them for its connect timeout).
     */
    @Test
    void should_answer_readiness_while_a_dependency_stalls_without_waiting_for_its_probe() throws Exception {
        assertEquals(200, management.get("health/ready").status());
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest ready = java.net.http.HttpRequest.newBuilder(management.uri("health/ready"))
                .timeout(Duration.ofSeconds(2))
                .GET()
                .build();
        Broker.freeze();
        try {
            Thread.sleep(2500); // past courier.health.cache (2 s): the next request starts a probe, which hangs
            List<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>> asked =
                    new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                asked.add(client.sendAsync(ready, java.net.http.HttpResponse.BodyHandlers.ofString()));
            }
            for (java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>> answer : asked) {
                int status = answer.get().statusCode(); // an HttpTimeoutException here: the request waited
                assertTrue(status == 200 || status == 503, "answered " + status);
            }
            JsonObject down = Eventually.await("readiness DOWN", Duration.ofSeconds(20), () -> {
                Http.Response answer = management.get("health/ready");
                return answer.status() == 503 ? java.util.Optional.of(answer.json()) : java.util.Optional.empty();
            });
            assertEquals("DOWN", check(down, "broker"));
        } finally {
            Broker.thaw();
        }
        Eventually.until(
                "readiness UP",
                Duration.ofSeconds(60),
                () -> management.get("health/ready").status() == 200);
    }

    @Test
    void should_probe_each_dependency_at_most_once_per_cache_window_however_often_asked() {
        Metrics metrics = new Metrics();
        assertEquals(200, management.get("health/ready").status()); // the counters exist from the first probe on
        double broker = metrics.value("courier_health_probes_total", "check", "broker");
        double database = metrics.value("courier_health_probes_total", "check", "database");
        long start = System.nanoTime();
        int asked = 40;
        for (int i = 0; i < asked; i++) {
            Http.Response ready = management.get("health/ready");
            assertEquals(200, ready.status(), ready::toString);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        // A probe per started window of courier.health.cache (2 s), and one for a window begun before the loop.
        double most = Math.floor(seconds / 2) + 2;
        double brokerProbes = metrics.value("courier_health_probes_total", "check", "broker") - broker;
        double databaseProbes = metrics.value("courier_health_probes_total", "check", "database") - database;
        assertTrue(
                brokerProbes <= most && databaseProbes <= most,
                asked + " asks in " + seconds + " s ran " + brokerProbes + " broker and " + databaseProbes
                        + " database probes; at most " + most + " expected");
    }

    private static String check(JsonObject health, String name) {
        return find(health, name).getString("status");
    }

    private static JsonObject find(JsonObject health, String name) {
        for (JsonValue value : health.getJsonArray("checks")) {
            JsonObject check = value.asJsonObject();
            if (check.getString("name").equals(name)) {
                return check;
            }
        }
        throw new AssertionError("no check " + name + " in " + health);
    }
}
