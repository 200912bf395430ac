package dev.courier.testing;

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
import jakarta.jms.JMSContext;

/**
 * The test run's Artemis broker, seen from outside Courier: its own management counters (so a test checks
 * the broker side, not only what a listener saw), and stop/start through {@code bin/broker}.
 */
public final class Broker {

    private static final String PORT = System.getProperty("it.broker.port", "61617");

    private Broker() {
    }

    /** How many messages were ever added to {@code queue} on the broker (not counting redeliveries). */
    public static long messagesAdded(String queue) {
        return ((Number) attribute(ResourceNames.QUEUE + queue, "messagesAdded")).longValue();
    }

    /** Messages currently in {@code queue} (not yet acknowledged by a consumer). */
    public static long messageCount(String queue) {
        return ((Number) attribute(ResourceNames.QUEUE + queue, "messageCount")).longValue();
    }

    /** Sends a JMS text message with one string property straight to the broker, bypassing Courier. */
    public static void sendText(String queue, String text, String property, String value) {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + PORT);
                JMSContext context = factory.createContext("courier", "courier")) {
            context.createProducer().setProperty(property, value).send(context.createQueue(queue), text);
        }
    }

    private static Object attribute(String resource, String attribute) {
        try (ServerLocator locator = ActiveMQClient.createServerLocator("tcp://127.0.0.1:" + PORT);
                ClientSessionFactory factory = locator.createSessionFactory();
                ClientSession session = factory.createSession("courier", "courier", false, true, true, false, 1)) {
            ClientRequestor requestor = new ClientRequestor(session, "activemq.management");
            ClientMessage request = session.createMessage(false);
            ManagementHelper.putAttribute(request, resource, attribute);
            session.start();
            ClientMessage reply = requestor.request(request, 10_000);
            if (reply == null || !ManagementHelper.hasOperationSucceeded(reply)) {
                throw new IllegalStateException("management request for " + resource + "." + attribute + " failed");
            }
            return ManagementHelper.getResult(reply);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + resource + "." + attribute + " from the broker", e);
        }
    }

    public static void stop() {
        script("stop");
    }

    public static void start() {
        script("start");
    }

    private static void script(String command) {
        try {
            ProcessBuilder builder = new ProcessBuilder("bash", System.getProperty("it.broker.script", "bin/broker"), command)
                    .inheritIO();
            Map<String, String> env = builder.environment();
            env.put("COURIER_DATA_DIR", System.getProperty("it.data.dir", Path.of("target/it-data").toAbsolutePath().toString()));
            env.put("COURIER_BROKER_PORT", PORT);
            Process process = builder.start();
            if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("bin/broker " + command + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run bin/broker " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
