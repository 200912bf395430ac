package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A product server, as bin/courier runs it by default: courier.war with the lab off. It starts and serves
 * Courier without the lab's datasource ({@code jdbc/inventory}), and nothing of the lab answers. Its management
 * port is protected ({@code COURIER_MANAGEMENT_ACCESS=protected}), as for a port opened to the network.
 */
class ProductServerIT {

    private static LibertyProcess server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080"));
        server = new LibertyProcess("courier-product", port + 9, port + 10)
                .environment("COURIER_LAB", "off")
                .environment("COURIER_MANAGEMENT_ACCESS", "protected");
        server.deploy(Path.of(System.getProperty("it.product.war", "target/courier.war")));
        server.start();
        http = server.http();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.stop();
            server.undeploy();
        }
    }

    @Test
    void should_serve_courier_without_the_lab() throws Exception {
        assertEquals(200, http.get("api/queues").status());
        assertEquals(200, http.get("api/topics").status());
        Http.Response scenario = http.get("api/scenario/consistency");
        assertEquals(404, scenario.status(), scenario::toString);
        assertEquals(404, http.post("api/bench/queue", "{}").status());
        assertFalse(management("openapi", null).body().contains("/api/scenario"));
    }

    /**
     * Protected, the management port speaks HTTPS only, and /metrics (every queue, topic, producer and subscriber
     * name) answers its reader alone; /health stays open for probes.
     */
    @Test
    void should_protect_the_management_port_when_asked() {
        assertThrows(RuntimeException.class, () -> server.management().get("metrics"), "no plain HTTP");
        assertEquals(200, management("health/ready", null).status());
        Http.Response anonymous = management("metrics", null);
        assertEquals(401, anonymous.status(), anonymous::toString);
        assertFalse(anonymous.body().contains("courier_"), anonymous.body());
        assertEquals(
                401,
                management("metrics", Http.basic("monitor", "not-the-password")).status());
        assertEquals(
                403,
                management("metrics", Http.basic("consumer", Http.password("consumer")))
                        .status());
        Http.Response reader = management("metrics", Http.basic("monitor", Http.password("monitor")));
        assertEquals(200, reader.status(), reader::toString);
        assertTrue(reader.body().contains("courier_"), "Courier's metrics");
        assertEquals(403, http.as("monitor").get("api/queues").status(), "the reader has no role in the API");
    }

    private static Http.Response management(String path, String authorization) {
        return Http.httpsGet("localhost", server.managementPort(), path, authorization);
    }

    @Test
    void should_start_without_the_lab_datasource() throws Exception {
        String log = Files.readString(server.messagesLog());
        assertFalse(log.contains("jdbc/inventory"), "messages.log names jdbc/inventory");
        assertFalse(log.contains("dev.courier.scenario"), "messages.log names the scenario");
        java.util.List<String> errors = log.lines()
                .filter(line -> line.contains(" E "))
                // but the plain-HTTP request should_protect_the_management_port_when_asked makes on purpose
                .filter(line -> !line.contains("CWWKO0801E"))
                .toList();
        assertEquals(java.util.List.of(), errors, "errors in messages.log");
    }
}
