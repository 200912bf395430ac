package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.ProblemException;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A client error is an answer, not an incident: a run of 400, 404, 409 and 410 answers from the queue and the
 * reliable message service leaves no FFDC incident file naming a Courier problem (or a local transaction one
 * rolled back) and no ERROR line in the server's log. (Liberty writes one incident per exception type and place for the life of the server, so the
 * check covers every incident since this test run started, whichever test caused it.)
 */
@ExtendWith(ArquillianExtension.class)
class ClientErrorsIT {

    private static final Path LOGS = Path.of(System.getProperty("wlp.home"), "usr/servers/courier/logs");

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_answer_client_errors_without_an_incident_file_or_an_error_line() throws Exception {
        long logged = lines(LOGS.resolve("messages.log")).size();
        String queue = "ce" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        assertEquals(201, http.put("api/queues/" + queue, "{}").status());
        try {
            String messages = "api/queues/" + queue + "/messages";
            for (int round = 0; round < 5; round++) {
                http.post(messages, "{\"payload\": " + round + "}");
                JsonObject lease = http.post("api/queues/" + queue + "/receive", "{\"max\": 1}")
                        .json()
                        .getJsonArray("messages")
                        .getJsonObject(0);
                String message = messages + "/" + lease.getString("id");
                String token = "?leaseToken=" + lease.getString("leaseToken");
                assertEquals(409, http.delete(message + token + "x").status(), "a stale lease token");
                assertEquals(204, http.delete(message + token).status());
                assertEquals(410, http.delete(message + token).status(), "a retried ack");
                assertEquals(
                        410,
                        http.post(
                                        message + "/renew",
                                        "{\"leaseToken\": \"" + lease.getString("leaseToken")
                                                + "\", \"extendSeconds\": 5}")
                                .status(),
                        "a renewal of a gone message");
                assertEquals(
                        404,
                        http.post("api/queues/nosuch" + queue + "/messages", "{\"payload\": 1}")
                                .status());
                assertEquals(
                        404,
                        http.post("api/queues/nosuch" + queue + "/receive", "{\"max\": 1}")
                                .status());
                assertEquals(404, http.get("api/messages/nope").status());
                assertEquals(404, http.post("api/messages/nope/confirm", "").status());
                assertEquals(404, http.delete("api/messages/nope").status());
                assertEquals(404, http.get("api/producers/nobody").status());
                assertEquals(404, http.get("api/topics/nothing").status());
                assertEquals(
                        400,
                        http.post("api/topics/no%20such%20name/subscribers", "{\"name\": \"a\"}")
                                .status());
            }
        } finally {
            http.delete("api/queues/" + queue);
        }
        Thread.sleep(1000); // incidents are written by the failing thread; give a slow disk a moment

        List<String> problems = new ArrayList<>();
        for (Map.Entry<Path, String> incident : incidentsSinceThisRunStarted()) {
            String type = incident.getValue();
            // A problem thrown where no global transaction runs marks Liberty's local transaction containment,
            // which rolls back with an incident of its own (and WLTC0017E at ERROR): one on a request's path is a
            // client's (a start-up job failing outside a transaction leaves one too, and is not).
            if (isProblem(type)
                    || type.equals("com.ibm.ws.LocalTransaction.RolledbackException")
                            && lines(incident.getKey()).stream().anyMatch(ClientErrorsIT::isResourceFrame)) {
                problems.add(incident.getKey().getFileName() + ": " + type);
            }
        }
        assertTrue(problems.isEmpty(), () -> "client errors left incident files: " + problems);
        List<String> errors = lines(LOGS.resolve("messages.log")).stream()
                .skip(logged)
                .filter(line -> line.contains(" E ")
                        && (line.contains(queue) || line.contains("dev.courier") || line.contains("WLTC0017E")))
                .toList();
        assertTrue(errors.isEmpty(), () -> "client errors left ERROR lines: " + errors);
    }

    /** Each incident file written since this test JVM started, with the exception type it names. */
    private static List<Map.Entry<Path, String>> incidentsSinceThisRunStarted() throws IOException {
        long started = ManagementFactory.getRuntimeMXBean().getStartTime();
        Path ffdc = LOGS.resolve("ffdc");
        if (!Files.isDirectory(ffdc)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(ffdc)) {
            return files.filter(f -> f.getFileName().toString().startsWith("ffdc_"))
                    .filter(f -> f.toFile().lastModified() >= started)
                    .map(f -> Map.entry(
                            f,
                            lines(f).stream()
                                    .filter(l -> l.startsWith("Exception = "))
                                    .map(l ->
                                            l.substring("Exception = ".length()).strip())
                                    .findFirst()
                                    .orElse("")))
                    .toList();
        }
    }

    /** A stack frame of one of Courier's JAX-RS resources: the failure happened answering a request. */
    private static boolean isResourceFrame(String line) {
        return line.strip().matches("at dev\\.courier\\.[a-z.]+\\.[A-Za-z]+Resource\\.[a-zA-Z]+\\(.*");
    }

    private static boolean isProblem(String type) {
        try {
            return ProblemException.class.isAssignableFrom(
                    Class.forName(type, false, ClientErrorsIT.class.getClassLoader()));
        } catch (ClassNotFoundException e) {
            return false; // not one of Courier's types
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
