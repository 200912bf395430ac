package dev.courier.reliable;

import dev.courier.platform.Json;
import dev.courier.tracing.MessageTraces;
import dev.courier.tracing.MessageTraces.Passage;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Puts reliable messages on the broker through the Artemis resource adapter, in the transaction of the context it
 * is given (the {@link Relay}'s local broker transaction), and creates subscribers' queues.
 *
 * <p>Each topic is a multicast address; each subscriber a durable multicast queue {@code topic.subscriber} on it,
 * which any JMS, AMQP or core client can consume as {@code topic::topic.subscriber}. Every copy, the first and each
 * redelivery, carries {@code courierSubscriber} and reaches that subscriber's queue alone, because each queue's
 * filter is {@code courierSubscriber IS NULL OR courierSubscriber = '<its name>'} (the {@code IS NULL} is what
 * queues made before every copy was addressed still let through). (Not a send
 * to the queue's fully qualified name: the JMS client refuses a queue destination for a multicast queue, and a
 * topic destination with a fully qualified name is routed to every queue of the address.)
 */
@ApplicationScoped
class Publisher {

    /** JMS string property: the reliable message's id. Consumers report with it. */
    static final String MESSAGE_ID = "courierMessageId";
    static final String TOPIC = "courierTopic";
    static final String PRODUCER = "courierProducer";
    /** JMS string property: the one subscriber the copy is for (the queues' filters route on it). */
    static final String SUBSCRIBER = "courierSubscriber";
    /** JMS int property: the delivery attempt (1 for the first copy). */
    static final String ATTEMPT = "courierAttempt";

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @jakarta.inject.Inject
    private MessageTraces traces;

    /**
     * Makes sure the subscriber's durable multicast queue {@code topic.subscriber} exists on the address
     * {@code topic}: a {@code createQueue} request to the broker's management address, answered on a temporary
     * queue. Idempotent. Must run outside a transaction, or the request would wait for a commit that waits for
     * the answer. (A JMS shared durable subscription would do it too, but the Artemis client escapes the dot in
     * its name: the queue would be {@code topic\.subscriber}.)
     *
     * @throws jakarta.jms.JMSRuntimeException when the broker cannot be reached or refuses
     */
    void subscribe(String topic, String subscriber) {
        String configuration = Json.createObjectBuilder().add("name", Names.queue(topic, subscriber))
                .add("address", topic).add("routing-type", "MULTICAST").add("durable", true)
                .add("filter-string", SUBSCRIBER + " IS NULL OR " + SUBSCRIBER + " = '" + subscriber + "'").build().toString();
        String parameters = Json.createArrayBuilder().add(configuration).add(true).build().toString();
        try (JMSContext jms = connectionFactory.createContext()) {
            jakarta.jms.TemporaryQueue replies = jms.createTemporaryQueue();
            jakarta.jms.TextMessage request = jms.createTextMessage(parameters);
            request.setStringProperty("_AMQ_ResourceName", "broker");
            request.setStringProperty("_AMQ_OperationName", "createQueue");
            request.setJMSReplyTo(replies);
            jms.createProducer().send(jms.createQueue("activemq.management"), request);
            try (JMSConsumer consumer = jms.createConsumer(replies)) {
                jakarta.jms.Message reply = consumer.receive(10_000);
                if (reply == null) {
                    throw new jakarta.jms.JMSRuntimeException("the broker did not answer the createQueue request");
                }
                if (!reply.getBooleanProperty("_AMQ_OperationSucceeded")) {
                    throw new jakarta.jms.JMSRuntimeException("the broker refused to create queue "
                            + Names.queue(topic, subscriber) + ": " + reply.getBody(String.class));
                }
            }
        } catch (jakarta.jms.JMSException e) {
            throw new jakarta.jms.JMSRuntimeException("creating queue " + Names.queue(topic, subscriber) + " failed: " + e);
        }
    }

    /**
     * Sends the message in {@code session}'s transaction (the relay's local one) through {@code producer}, an
     * unidentified producer of that session, to {@code subscriber}'s queue only, marked with the delivery
     * {@code attempt}. A trace the message carries goes on from a publish span.
     */
    void send(Session session, MessageProducer producer, ReliableStore.MessageRow message, String subscriber,
            int attempt, Instant now) throws JMSException {
        TextMessage m = session.createTextMessage(message.payload());
        m.setStringProperty(MESSAGE_ID, message.id());
        m.setStringProperty(TOPIC, message.topic());
        m.setStringProperty(PRODUCER, message.producer());
        m.setStringProperty(SUBSCRIBER, subscriber);
        m.setIntProperty(ATTEMPT, attempt);
        Map<String, String> headers = traces.record(Passage.PUBLISH, MessageTraces.ARTEMIS, message.topic(),
                message.id(), Content.decodeHeaders(message.headers()));
        for (Map.Entry<String, String> header : headers.entrySet()) {
            m.setStringProperty(header.getKey(), header.getValue());
        }
        boolean later = message.deliverAt() != null && message.deliverAt().isAfter(now);
        producer.setDeliveryDelay(later ? Duration.between(now, message.deliverAt()).toMillis() : 0);
        producer.send(session.createTopic(message.topic()), m);
    }
}
