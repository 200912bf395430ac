package dev.courier.reliable;

import dev.courier.platform.Json;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Destination;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;

/**
 * Operations on the broker's management address (a request, answered on a temporary queue): creating a
 * subscriber's queue and reading what it is, and counting or removing a message's copies in one. Must run outside a transaction, or the
 * request would wait for a commit that waits for the answer.
 */
@ApplicationScoped
class BrokerManagement {

    /** Artemis's code for "Cannot find resource with name …": the queue (or address) does not exist. */
    private static final String NOT_FOUND = "AMQ229067";

    private static final int ATTEMPTS = 3;
    private static final java.util.logging.Logger LOG =
            java.util.logging.Logger.getLogger(BrokerManagement.class.getName());

    /**
     * The broker answered and refused, did not answer in time, or the answer was lost after the request went out:
     * asking again would not help, or would be a second operation.
     */
    static class Answered extends JMSRuntimeException {
        private static final long serialVersionUID = 1L;

        Answered(String message) {
            super(message);
        }
    }

    /** The broker has no resource of that name (a queue an operator deleted, say). */
    static final class NoSuchResource extends Answered {
        private static final long serialVersionUID = 1L;

        NoSuchResource(String message) {
            super(message);
        }
    }

    // Unshareable: within one transaction or local containment, a shareable factory hands out the same pooled
    // connection again, so a try after a dead connection would meet the very same one.
    @Resource(lookup = "jms/courier", shareable = false)
    private ConnectionFactory connectionFactory;

    /**
     * Invokes {@code operation} on the broker's management resource {@code resource} ({@code broker},
     * {@code queue.<name>}) with {@code parameters}. @return the answer's JSON array
     *
     * @throws JMSRuntimeException when the broker cannot be reached, does not answer in 10 s, or refuses
     *         ({@link NoSuchResource} when there is no such resource)
     */
    JsonArray invoke(String resource, String operation, JsonValue... parameters) {
        JsonArrayBuilder arguments = Json.createArrayBuilder();
        for (JsonValue p : parameters) {
            arguments.add(p);
        }
        return request(
                resource, "_AMQ_OperationName", operation, arguments.build().toString());
    }

    /**
     * Reads {@code attribute} of the management resource {@code resource} (e.g. {@code address} of
     * {@code queue.<name>}). @return the answer's JSON array (one element)
     *
     * @throws JMSRuntimeException when the broker cannot be reached, does not answer, or has no such resource
     */
    JsonArray attribute(String resource, String attribute) {
        return request(resource, "_AMQ_Attribute", attribute, "[]");
    }

    private JsonArray request(String resource, String kind, String operation, String arguments) {
        // Pooled connections the broker dropped (it restarted) fail when next used: the resource adapter has no
        // validation the pool could ask first, and reconnecting is off (ReconnectAttempts 0) so that calls fail
        // fast while the broker is down. A failure makes the pool discard its connections (purgePolicy
        // EntirePool), so the next try, on a connection of its own (unshareable), gets a fresh one: up to three
        // tries, a moment apart, of what failed before the request went out (answer: after it, none).
        for (int attempt = 1; ; attempt++) {
            try {
                return requestOnce(resource, kind, operation, arguments);
            } catch (Answered e) {
                throw e;
            } catch (JMSRuntimeException e) {
                if (attempt == ATTEMPTS) {
                    throw e;
                }
                int tried = attempt;
                LOG.fine(() -> operation + " on " + resource + " failed (" + e + "); try " + (tried + 1));
                pause(attempt * 200L);
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JMSRuntimeException("interrupted while asking the broker again");
        }
    }

    private JsonArray requestOnce(String resource, String kind, String operation, String arguments) {
        try (JMSContext jms = connectionFactory.createContext()) {
            jakarta.jms.TemporaryQueue replies = jms.createTemporaryQueue();
            jakarta.jms.TextMessage request = jms.createTextMessage(arguments);
            request.setStringProperty("_AMQ_ResourceName", resource);
            request.setStringProperty(kind, operation);
            request.setJMSReplyTo(replies);
            jms.createProducer().send(jms.createQueue("activemq.management"), request);
            return answer(jms, replies, resource, operation);
        } catch (JMSException e) {
            throw new JMSRuntimeException(operation + " on " + resource + " failed: " + e);
        }
    }

    /**
     * The broker's answer to a request sent. A failure from here on is not retried: the broker may have carried
     * the operation out (a queue destroyed, say), and asking again would be a second operation.
     */
    private static JsonArray answer(JMSContext jms, Destination replies, String resource, String operation) {
        try {
            try (JMSConsumer consumer = jms.createConsumer(replies)) {
                jakarta.jms.Message reply = consumer.receive(10_000);
                if (reply == null) {
                    throw new Answered("the broker did not answer " + operation + " on " + resource);
                }
                String body = reply.getBody(String.class);
                if (!reply.getBooleanProperty("_AMQ_OperationSucceeded")) {
                    String refusal = "the broker refused " + operation + " on " + resource + ": " + body;
                    throw body != null && body.contains(NOT_FOUND)
                            ? new NoSuchResource(refusal)
                            : new Answered(refusal);
                }
                try (var reader = Json.createReader(new StringReader(body == null ? "[]" : body))) {
                    return reader.readArray();
                }
            }
        } catch (JMSException | JMSRuntimeException e) {
            if (e instanceof Answered answered) {
                throw answered;
            }
            throw new Answered("the answer to " + operation + " on " + resource + " was lost: " + e);
        }
    }
}
