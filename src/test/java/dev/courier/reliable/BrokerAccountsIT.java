package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.DatabaseIndependent;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The broker enforces what Courier's API does: a subscriber's own broker account consumes its own queue and nothing
 * else, the broker speaks the one protocol Courier uses, and its files are its owner's. Plain JMS clients, as a
 * consumer outside Courier would be.
 */
@DatabaseIndependent
@ExtendWith(ArquillianExtension.class)
class BrokerAccountsIT {

    private final Fixture f = new Fixture();
    private final Http http = f.http;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void a_subscribers_account_consumes_its_own_queue_and_is_refused_everything_else() {
        f.register(f.producer, "COMMITTED").subscribe("a", "b");
        JsonObject a = account("a");
        JsonObject b = account("b");
        assertEquals(f.topic + ".a", a.getString("user"));
        assertEquals(Fixture.queue(f.topic, "a"), a.getString("queue"));
        String id = f.order("").getString("messageId");

        assertEquals(id, receive(Fixture.queue(f.topic, "a"), a).orElseThrow().courierMessageId());
        assertThrows(
                JMSSecurityRuntimeException.class,
                () -> receive(Fixture.queue(f.topic, "b"), a),
                "another subscriber's queue");
        assertThrows(
                JMSSecurityRuntimeException.class,
                () -> Broker.sendText(
                        Fixture.queue(f.topic, "b"),
                        "{}",
                        "courierMessageId",
                        id,
                        a.getString("user"),
                        a.getString("password")),
                "a forged copy");
        assertThrows(
                JMSSecurityRuntimeException.class,
                () -> Broker.sendText(
                        "activemq.management",
                        "[]",
                        "_AMQ_ResourceName",
                        "broker",
                        a.getString("user"),
                        a.getString("password")),
                "the broker's management");
        assertThrows(
                JMSSecurityRuntimeException.class, () -> receive(f.topic + "-made-up", a), "a queue of its own making");
        assertEquals(
                id, receive(Fixture.queue(f.topic, "b"), b).orElseThrow().courierMessageId(), "b's copy waited for b");

        // A new password: the old one stops working (once the broker's cache of logins lets it go).
        JsonObject again = account("a");
        assertNotEquals(a.getString("password"), again.getString("password"));
        Eventually.until("the old password refused", Duration.ofSeconds(30), () -> !logsIn(a));
        assertTrue(logsIn(again));
    }

    @Test
    void an_account_is_issued_to_admins_only_for_a_subscriber_that_exists() {
        f.subscribe("a");
        String path = "api/topics/" + f.topic + "/subscribers/a/broker-account";
        Http.Response unknown = http.post("api/topics/" + f.topic + "/subscribers/nobody/broker-account", "");
        assertEquals(404, unknown.status(), unknown::toString);
        assertEquals(
                "there is no subscriber '" + f.topic + "/nobody'",
                unknown.json().getString("detail"));
        Http.Response badName = http.post("api/topics/" + f.topic + "/subscribers/a.b/broker-account", "");
        assertEquals(400, badName.status(), badName::toString);
        assertEquals(403, http.as("consumer").post(path, "").status());
        assertEquals(401, http.anonymous().post(path, "").status());
    }

    @Test
    void an_account_outlives_a_broker_restart_and_one_asked_for_while_the_broker_is_down_is_refused_with_503()
            throws IOException {
        f.subscribe("a");
        JsonObject issued = account("a");
        String path = "api/topics/" + f.topic + "/subscribers/a/broker-account";
        // Kept hashed in the broker's users file, never in clear.
        Path instance = instance();
        String user = issued.getString("user");
        List<String> entries = Files.readAllLines(instance.resolve("etc/artemis-users.properties")).stream()
                .filter(line -> line.split("=", 2)[0].trim().equals(user))
                .toList();
        assertEquals(1, entries.size(), entries::toString);
        assertTrue(entries.get(0).split("=", 2)[1].trim().startsWith("ENC("), "hashed: " + entries);
        assertFalse(entries.get(0).contains(issued.getString("password")), "no password in clear");
        // An instance made before the owner-only rule, as an older bin/broker left it: the next start mends it.
        Files.setPosixFilePermissions(instance.resolve("etc/broker.xml"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(instance.resolve("data/journal"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Broker.stop();
        try {
            Http.Response down = http.post(path, "");
            assertEquals(503, down.status(), down::toString);
            assertEquals("urn:courier:problem:broker-unavailable", down.json().getString("type"));
        } finally {
            Broker.start();
        }
        // The user and its security setting are the broker's own (its users file, its journal): kept.
        Eventually.until("the account logs in after the restart", Duration.ofSeconds(30), () -> logsIn(issued));
        assertEquals(
                java.util.Optional.empty(),
                Broker.receive(
                        Fixture.queue(f.topic, "a"),
                        Duration.ofSeconds(1),
                        issued.getString("user"),
                        issued.getString("password")),
                "still allowed to consume its queue, which is empty");
        Eventually.until(
                "issued after the broker restart",
                Duration.ofSeconds(30),
                () -> http.post(path, "").status() == 200);
        assertEquals(List.of(), readableByOthers(instance), "files others may read after the restart");
    }

    @Test
    void the_broker_speaks_the_core_protocol_only_and_its_files_are_its_owners() throws IOException {
        // A broker that spoke STOMP or AMQP would answer these at once (CONNECTED, ERROR, or its AMQP header).
        assertEquals("", firstAnswer("CONNECT\naccept-version:1.2\n\n\0"), "STOMP");
        assertEquals("", firstAnswer("AMQP\0\1\0\0"), "AMQP");

        Path instance = instance();
        assertTrue(Files.isDirectory(instance.resolve("data/journal")), "the journal is under " + instance);
        assertEquals(List.of(), readableByOthers(instance), "files others may read");
    }

    private static Path instance() {
        return Path.of(System.getProperty("it.data.dir", "target/it-data"), "broker");
    }

    /** The files and directories under {@code instance} that its group or others may read, write or enter. */
    private static List<String> readableByOthers(Path instance) throws IOException {
        Set<PosixFilePermission> others = Set.of(
                PosixFilePermission.GROUP_READ,
                PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_EXECUTE,
                PosixFilePermission.OTHERS_READ,
                PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_EXECUTE);
        List<String> open;
        try (Stream<Path> files = Files.walk(instance)) {
            open = files.filter(p -> Files.isRegularFile(p) || Files.isDirectory(p))
                    .filter(p -> {
                        try {
                            return Files.getPosixFilePermissions(p).stream().anyMatch(others::contains);
                        } catch (IOException e) {
                            return false; // a file the broker just removed
                        }
                    })
                    .map(p -> instance.relativize(p).toString())
                    .toList();
        }
        return open;
    }

    private JsonObject account(String subscriber) {
        Http.Response issued =
                http.post("api/topics/" + f.topic + "/subscribers/" + subscriber + "/broker-account", "");
        assertEquals(200, issued.status(), issued::toString);
        return issued.json();
    }

    private static java.util.Optional<Broker.Received> receive(String queue, JsonObject account) {
        return Broker.receive(queue, Duration.ofSeconds(20), account.getString("user"), account.getString("password"));
    }

    private static boolean logsIn(JsonObject account) {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + Broker.PORT)) {
            factory.createContext(account.getString("user"), account.getString("password"))
                    .close();
            return true;
        } catch (JMSSecurityRuntimeException e) {
            return false;
        }
    }

    /** What the broker answers to {@code greeting} within 3 s: empty when it says nothing or hangs up. */
    private static String firstAnswer(String greeting) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(Broker.PORT))) {
            socket.setSoTimeout(3_000);
            socket.getOutputStream().write(greeting.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] answer = new byte[256];
            int read = in.read(answer);
            return read <= 0 ? "" : new String(answer, 0, read, StandardCharsets.ISO_8859_1);
        } catch (SocketTimeoutException | java.net.SocketException e) {
            return "";
        }
    }
}
