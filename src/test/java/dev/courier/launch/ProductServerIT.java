package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A product server, as bin/courier runs it by default: courier.war with the lab off. It starts and serves
 * Courier without the lab's datasource ({@code jdbc/inventory}), and nothing of the lab answers.
 */
class ProductServerIT {

    private static LibertyProcess server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080"));
        server = new LibertyProcess("courier-product", port + 9, port + 10).environment("COURIER_LAB", "off");
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
        assertFalse(server.management().get("openapi").body().contains("/api/scenario"));
    }

    @Test
    void should_start_without_the_lab_datasource() throws Exception {
        String log = Files.readString(server.messagesLog());
        assertFalse(log.contains("jdbc/inventory"), "messages.log names jdbc/inventory");
        assertFalse(log.contains("dev.courier.scenario"), "messages.log names the scenario");
        java.util.List<String> errors =
                log.lines().filter(line -> line.contains(" E ")).toList();
        assertEquals(java.util.List.of(), errors, "errors in messages.log");
    }
}
