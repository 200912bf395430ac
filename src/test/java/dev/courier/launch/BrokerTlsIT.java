package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.DatabaseIndependent;
import dev.courier.testing.UntrustedCa;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSRuntimeException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code COURIER_BROKER_TLS=on bin/broker start}: the broker's acceptor speaks TLS with a certificate the checkout's
 * CA signed ({@code bin/local-ca}), and the transport parameters it gives Liberty ({@code security/broker-tls.xml},
 * the resource adapter's {@code ConnectionParameters}) connect, checking that CA and the host name. A plain
 * connection and one trusting another CA are refused.
 */
@DatabaseIndependent
class BrokerTlsIT {

    private static final Path ROOT = Path.of(System.getProperty("user.dir"));

    @TempDir
    Path dir;

    @Test
    void the_broker_speaks_tls_and_liberty_is_told_how_to_check_it() throws Exception {
        Path data = dir.resolve("data");
        int port = freePort();
        try {
            script(data, port, "start");
            String transport = transport(data.resolve("security/broker-tls.xml"));
            assertTrue(transport.contains("sslEnabled=true") && transport.contains("verifyHost=true"), transport);
            Properties broker = new Properties();
            try (var in = Files.newBufferedReader(data.resolve("security/broker.properties"))) {
                broker.load(in);
            }
            String user = broker.getProperty("user");
            String password = broker.getProperty("password");

            try (ActiveMQConnectionFactory tls =
                            new ActiveMQConnectionFactory("tcp://localhost:" + port + "?" + transport);
                    JMSContext context = tls.createContext(user, password)) {
                context.createProducer().send(context.createQueue("tls.check"), "over TLS");
                assertEquals(
                        "over TLS",
                        context.createConsumer(context.createQueue("tls.check")).receiveBody(String.class, 10_000));
            }
            assertRefused("tcp://localhost:" + port + "?reconnectAttempts=0", user, password);
            Path otherCa = UntrustedCa.in(dir);
            assertRefused(
                    "tcp://localhost:" + port + "?"
                            + transport.replaceAll("trustStorePath=[^;]*", "trustStorePath=" + otherCa),
                    user,
                    password);
        } finally {
            script(data, port, "kill");
        }
    }

    private static void assertRefused(String url, String user, String password) {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(url)) {
            factory.setCallTimeout(5_000);
            assertThrows(
                    JMSRuntimeException.class,
                    () -> factory.createContext(user, password).close(),
                    url);
        }
    }

    private static String transport(Path includeFile) throws IOException {
        Matcher value = Pattern.compile("name=\"courier.broker.transport\" value=\"([^\"]*)\"")
                .matcher(Files.readString(includeFile));
        assertTrue(value.find(), includeFile + " names the transport");
        return value.group(1);
    }

    private void script(Path data, int port, String command) throws Exception {
        run(List.of("bash", ROOT.resolve("bin/broker").toString(), command), data, port);
    }

    private static void run(List<String> command, Path data, int port) throws Exception {
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
        if (data != null) {
            builder.environment().put("COURIER_DATA_DIR", data.toString());
            builder.environment().put("COURIER_BROKER_PORT", Integer.toString(port));
            builder.environment().put("COURIER_BROKER_TLS", "on");
            builder.environment().remove("COURIER_BROKER_PASSWORD");
            builder.environment().remove("COURIER_BROKER_TOPOLOGY");
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(3, TimeUnit.MINUTES), command + " ran too long");
        assertEquals(0, process.exitValue(), command + ": " + output);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
