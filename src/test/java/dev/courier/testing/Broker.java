package dev.courier.testing;

import jakarta.jms.JMSContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.activemq.artemis.api.core.client.ActiveMQClient;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.ClientRequestor;
import org.apache.activemq.artemis.api.core.client.ClientSession;
import org.apache.activemq.artemis.api.core.client.ClientSessionFactory;
import org.apache.activemq.artemis.api.core.client.ServerLocator;
import org.apache.activemq.artemis.api.core.management.ManagementHelper;
import org.apache.activemq.artemis.api.core.management.ResourceNames;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * The test run's Artemis broker, seen from outside Courier: its own management counters (so a test checks
 * the broker side, not only what a listener saw), and stop/start through {@code bin/broker}.
 */
public final class Broker {

    /** The broker's port in this test run. */
    public static final String PORT = System.getProperty("it.broker.port", "61617");

    /** The broker's user and password: those bin/broker generated for the test run's broker. */
    public static final String USER;

    public static final String PASSWORD;

    static {
        java.util.Properties generated = new java.util.Properties();
        Path file = Path.of(System.getProperty("it.data.dir", "target/it-data"), "security", "broker.properties");
        try (java.io.Reader reader = java.nio.file.Files.newBufferedReader(file)) {
            generated.load(reader);
        } catch (IOException e) {
            // a broker made before passwords were generated
        }
        USER = generated.getProperty("user", "courier");
        PASSWORD = generated.getProperty("password", "courier");
    }

    private Broker() {}

    /** How many messages were ever added to {@code queue} on the broker (not counting redeliveries). */
    public static long messagesAdded(String queue) {
        return ((Number) attribute(ResourceNames.QUEUE + queue, "messagesAdded")).longValue();
    }

    /** How many duplicate ids the broker keeps per address (its {@code id-cache-size}). */
    public static int idCacheSize() {
        return ((Number) attribute(ResourceNames.BROKER, "IDCacheSize")).intValue();
    }

    /** Messages currently in {@code queue} (not yet acknowledged by a consumer). */
    public static long messageCount(String queue) {
        return ((Number) attribute(ResourceNames.QUEUE + queue, "messageCount")).longValue();
    }

    /** Sends a JMS text message with one string property straight to the broker, bypassing Courier. */
    public static void sendText(String queue, String text, String property, String value) {
        sendText(queue, text, property, value, USER, PASSWORD);
    }

    /** {@link #sendText(String, String, String, String)} as broker user {@code user}. */
    public static void sendText(
            String queue, String text, String property, String value, String user, String password) {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + PORT);
                JMSContext context = factory.createContext(user, password)) {
            // A fully qualified name of a subscriber's (multicast) queue is sent to as a topic.
            context.createProducer()
                    .setProperty(property, value)
                    .send(queue.contains("::") ? context.createTopic(queue) : context.createQueue(queue), text);
        }
    }

    /** A message as a plain JMS client outside Courier sees it. */
    public record Received(String courierMessageId, String body, Integer attempt, String subscriber, long expiration) {}

    /**
     * Receives one message from {@code queue} (a fully qualified {@code address::queue} name works) with a plain
     * JMS client, acknowledging it; empty when none comes within {@code wait}.
     */
    public static java.util.Optional<Received> receive(String queue, java.time.Duration wait) {
        return receive(queue, wait, USER, PASSWORD);
    }

    /** {@link #receive(String, java.time.Duration)} as broker user {@code user}. */
    public static java.util.Optional<Received> receive(
            String queue, java.time.Duration wait, String user, String password) {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + PORT);
                JMSContext context = factory.createContext(user, password);
                jakarta.jms.JMSConsumer consumer = context.createConsumer(context.createQueue(queue))) {
            jakarta.jms.Message message = consumer.receive(wait.toMillis());
            if (message == null) {
                return java.util.Optional.empty();
            }
            Integer attempt =
                    message.propertyExists("courierAttempt") ? message.getIntProperty("courierAttempt") : null;
            return java.util.Optional.of(new Received(
                    message.getStringProperty("courierMessageId"),
                    message.getBody(String.class),
                    attempt,
                    message.getStringProperty("courierSubscriber"),
                    message.getJMSExpiration()));
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException("cannot receive from " + queue, e);
        }
    }

    /** The routing type of queue {@code queue} ("MULTICAST", "ANYCAST"). */
    public static String routingType(String queue) {
        return (String) attribute(ResourceNames.QUEUE + queue, "routingType");
    }

    /** Deletes queue {@code queue}, cutting off its consumers (as an operator's mistake would). */
    public static void destroyQueue(String queue) {
        management(ResourceNames.BROKER, request -> {
            try {
                ManagementHelper.putOperationInvocation(request, ResourceNames.BROKER, "destroyQueue", queue, true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Object attribute(String resource, String attribute) {
        return management(resource, request -> ManagementHelper.putAttribute(request, resource, attribute));
    }

    private static Object management(String resource, java.util.function.Consumer<ClientMessage> what) {
        try (ServerLocator locator = ActiveMQClient.createServerLocator("tcp://127.0.0.1:" + PORT);
                ClientSessionFactory factory = locator.createSessionFactory();
                ClientSession session = factory.createSession(USER, PASSWORD, false, true, true, false, 1)) {
            ClientRequestor requestor = new ClientRequestor(session, "activemq.management");
            ClientMessage request = session.createMessage(false);
            what.accept(request);
            session.start();
            ClientMessage reply = requestor.request(request, 10_000);
            if (reply == null || !ManagementHelper.hasOperationSucceeded(reply)) {
                throw new IllegalStateException("the management request on " + resource + " failed: "
                        + (reply == null ? "no answer" : ManagementHelper.getResult(reply)));
            }
            return ManagementHelper.getResult(reply);
        } catch (Exception e) {
            throw new IllegalStateException("the management request on " + resource + " failed", e);
        }
    }

    public static void stop() {
        script("stop");
    }

    /** Kills the broker with SIGKILL, as a crash would (no clean shutdown of its journal or connections). */
    public static void kill() {
        script("kill");
    }

    public static void start() {
        script("start");
    }

    /** Freezes the broker (SIGSTOP): it keeps its connections and answers nothing, as a stalled host would. */
    public static void freeze() {
        signal("STOP");
    }

    /** Lets a frozen broker go on (SIGCONT). */
    public static void thaw() {
        signal("CONT");
    }

    private static void signal(String signal) {
        Path pidFile = Path.of(System.getProperty(
                        "it.data.dir",
                        Path.of("target/it-data").toAbsolutePath().toString()))
                .resolve("broker")
                .resolve("broker.pid");
        try {
            String pid = java.nio.file.Files.readString(pidFile).trim();
            Process kill =
                    new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot signal the broker", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code bin/broker --pair} with these arguments ({@code kill primary}, {@code start}, …): the primary and
     * backup of the failover profile, whose backup serves on {@code it.broker.backup.port}.
     */
    public static void pair(String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = "--pair";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        script(command);
    }

    private static void script(String... command) {
        try {
            java.util.List<String> line = new java.util.ArrayList<>(
                    java.util.List.of("bash", System.getProperty("it.broker.script", "bin/broker")));
            line.addAll(java.util.List.of(command));
            ProcessBuilder builder = new ProcessBuilder(line).inheritIO();
            Map<String, String> env = builder.environment();
            env.put(
                    "COURIER_DATA_DIR",
                    System.getProperty(
                            "it.data.dir",
                            Path.of("target/it-data").toAbsolutePath().toString()));
            env.put("COURIER_BROKER_PORT", PORT);
            String backupPort = System.getProperty("it.broker.backup.port");
            if (backupPort != null) {
                env.put("COURIER_BROKER_BACKUP_PORT", backupPort);
            }
            Process process = builder.start();
            if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("bin/broker " + String.join(" ", command) + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run bin/broker " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
