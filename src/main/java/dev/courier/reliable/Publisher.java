package dev.courier.reliable;

import dev.courier.platform.Json;
import dev.courier.tracing.MessageTraces;
import dev.courier.tracing.MessageTraces.Passage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Puts reliable messages on the broker through the Artemis resource adapter, in the transaction of the context it
 * is given (the {@link Relay}'s local broker transaction), creates subscribers' queues, and counts and removes a
 * message's copies in one.
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
    /**
     * The broker's duplicate detection: a copy whose id the address has seen is not routed, and a transaction that
     * holds one fails whole. Each outbox entry's copy for a subscriber has its own: published again (a relay that
     * died, or a broker that failed over, after the broker's commit and before the mark), it is dropped; a
     * redelivery or a replay is a new outbox entry, a new copy.
     */
    static final String DUPLICATE_ID = "_AMQ_DUPL_ID";

    @jakarta.inject.Inject
    private BrokerManagement management;

    @jakarta.inject.Inject
    private MessageTraces traces;

    /**
     * Makes sure the subscriber's durable multicast queue {@code topic.subscriber} exists on the address
     * {@code topic} with the subscriber's filter: a {@code createQueue} request to the broker's management address,
     * answered on a temporary queue, then the queue's address, routing type and filter read back. A queue of that
     * name that is something else is replaced: the broker auto-creates one when a consumer (an MDB's activation
     * spec started before its subscriber was registered) asks for a queue that does not exist, as an anycast queue
     * on an address of its own, which no copy would ever reach. Replacing it cuts that consumer off (the resource
     * adapter does not attach again to a replaced queue): register a subscriber before its consumer starts.
     * Idempotent. Must run outside a transaction, or the request would wait for a commit that waits for the
     * answer. (A JMS shared durable subscription would do it too, but the Artemis client escapes the dot in its
     * name: the queue would be {@code topic\.subscriber}.)
     *
     * @return true when a queue of that name that was something else had to be replaced
     * @throws jakarta.jms.JMSRuntimeException when the broker cannot be reached or refuses
     */
    boolean subscribe(String topic, String subscriber) {
        String name = Names.queue(topic, subscriber);
        String filter = SUBSCRIBER + " IS NULL OR " + SUBSCRIBER + " = '" + subscriber + "'";
        String configuration = Json.createObjectBuilder()
                .add("name", name)
                .add("address", topic)
                .add("routing-type", "MULTICAST")
                .add("durable", true)
                .add("filter-string", filter)
                .build()
                .toString();
        management.invoke("broker", "createQueue", Json.createValue(configuration), jakarta.json.JsonValue.TRUE);
        if (is(name, "address", topic) && is(name, "routingType", "MULTICAST") && is(name, "filter", filter)) {
            return false;
        }
        // Something else by that name (anycast, another address, no filter): nothing of Courier's reaches it.
        management.invoke("broker", "destroyQueue", Json.createValue(name), jakarta.json.JsonValue.TRUE);
        management.invoke("broker", "createQueue", Json.createValue(configuration), jakarta.json.JsonValue.FALSE);
        return true;
    }

    private boolean is(String queue, String attribute, String expected) {
        jakarta.json.JsonArray answer = management.attribute("queue." + queue, attribute);
        return !answer.isEmpty()
                && answer.get(0).getValueType() == jakarta.json.JsonValue.ValueType.STRING
                && expected.equals(answer.getString(0)); // no filter answers null: not the subscriber's queue
    }

    /**
     * How many copies of each of the messages {@code messageIds} {@code subscriber}'s queue holds, in a few
     * management calls whatever their number: the copies in the queue's list (delivered to no consumer yet, however
     * deep: Artemis 2.56 counts a filter over the whole list, where 2.45 stopped at its
     * {@code management-browse-page-size}), those held for a later delivery time or a redelivery delay (scheduled,
     * which the list's count leaves out), and those a consumer has taken and not acknowledged (delivering: an MDB's
     * or any JMS client's prefetched copies, which the list leaves out too). Read in the order a copy moves
     * forward (scheduled, list, delivering), so a copy moving on while it is counted is counted twice, not missed;
     * one moving back (a consumer that rolls back or closes with prefetched copies) can be missed, and gets one
     * more copy, which the inbox absorbs. A
     * message with no copy is absent from the map; no queue at all (an operator removed it) holds none. Outside a
     * transaction.
     *
     * @throws jakarta.jms.JMSRuntimeException when the broker cannot be reached or refuses
     */
    Map<String, Long> copiesHeld(String topic, String subscriber, java.util.Collection<String> messageIds) {
        String queue = "queue." + Names.queue(topic, subscriber);
        String filter = copiesOf(messageIds);
        long scheduledCount;
        try {
            scheduledCount = number(management.attribute(queue, "scheduledCount"));
        } catch (BrokerManagement.NoSuchResource e) {
            return Map.of();
        }
        Map<String, Long> copies = new java.util.HashMap<>();
        if (scheduledCount > 0) {
            // No operation counts the scheduled copies by filter: read their list.
            String scheduled =
                    management.invoke(queue, "listScheduledMessagesAsJSON").getString(0);
            try (var reader = Json.createReader(new StringReader(scheduled))) {
                reader.readArray().getValuesAs(JsonObject.class).stream()
                        .map(m -> m.getString(MESSAGE_ID, null))
                        .filter(messageIds::contains)
                        .forEach(id -> copies.merge(id, 1L, Long::sum));
            }
        }
        add(copies, management.invoke(queue, "countMessages", Json.createValue(filter), Json.createValue(MESSAGE_ID)));
        if (number(management.attribute(queue, "deliveringCount")) > 0) {
            add(
                    copies,
                    management.invoke(
                            queue, "countDeliveringMessages", Json.createValue(filter), Json.createValue(MESSAGE_ID)));
        }
        return copies;
    }

    private static long number(jakarta.json.JsonArray answer) {
        return answer.getJsonNumber(0).longValue();
    }

    /** Adds a count grouped by message id (a JSON object in the answer's one string) to {@code copies}. */
    private static void add(Map<String, Long> copies, jakarta.json.JsonArray answer) {
        try (var reader = Json.createReader(new StringReader(answer.getString(0)))) {
            reader.readObject().forEach((id, count) -> {
                if (count instanceof jakarta.json.JsonNumber n && !"null".equals(id)) {
                    copies.merge(id, n.longValue(), Long::sum);
                }
            });
        }
    }

    /**
     * Removes the copies of {@code messageId} left in {@code subscriber}'s queue. @return how many: 0 when the
     * queue is gone (there is nothing left to remove, and a delivery to bury must not wait on it)
     */
    long removeCopies(String topic, String subscriber, String messageId) {
        try {
            return management
                    .invoke(
                            "queue." + Names.queue(topic, subscriber),
                            "removeMessages",
                            Json.createValue(copiesOf(messageId)))
                    .getJsonNumber(0)
                    .longValue();
        } catch (BrokerManagement.NoSuchResource e) {
            return 0;
        }
    }

    /** A filter on the message id, which Courier made (a UUID): no quote can reach the filter from a caller. */
    private static String copiesOf(String messageId) {
        return MESSAGE_ID + " = '" + requireId(messageId) + "'";
    }

    /** A filter on several message ids. */
    private static String copiesOf(java.util.Collection<String> messageIds) {
        return MESSAGE_ID + " IN ("
                + messageIds.stream()
                        .map(id -> "'" + requireId(id) + "'")
                        .collect(java.util.stream.Collectors.joining(", "))
                + ")";
    }

    private static String requireId(String messageId) {
        if (!messageId.matches("[0-9a-fA-F-]{36}")) {
            throw new IllegalArgumentException("not a message id: " + messageId);
        }
        return messageId;
    }

    /**
     * Sends the message in {@code session}'s transaction (the relay's local one) through {@code producer}, an
     * unidentified producer of that session, to {@code subscriber}'s queue only, marked with the delivery
     * {@code attempt} and the duplicate id of outbox entry {@code entry}'s copy for that subscriber, and expiring at
     * the message's {@code horizon}. A trace the
     * message carries goes on from a publish span.
     */
    void send(
            Session session,
            MessageProducer producer,
            String entry,
            MessageStore.MessageRow message,
            String subscriber,
            int attempt,
            Instant now,
            Instant horizon)
            throws JMSException {
        TextMessage m = session.createTextMessage(message.payload());
        m.setStringProperty(DUPLICATE_ID, entry + "/" + subscriber);
        m.setStringProperty(MESSAGE_ID, message.id());
        m.setStringProperty(TOPIC, message.topic());
        m.setStringProperty(PRODUCER, message.producer());
        m.setStringProperty(SUBSCRIBER, subscriber);
        m.setIntProperty(ATTEMPT, attempt);
        Map<String, String> headers = traces.record(
                Passage.PUBLISH,
                MessageTraces.ARTEMIS,
                message.topic(),
                message.id(),
                Content.decodeHeaders(message.headers()));
        for (Map.Entry<String, String> header : headers.entrySet()) {
            m.setStringProperty(header.getKey(), header.getValue());
        }
        boolean later = message.deliverAt() != null && message.deliverAt().isAfter(now);
        producer.setDeliveryDelay(
                later ? Duration.between(now, message.deliverAt()).toMillis() : 0);
        // The broker expires a copy not consumed by the message's horizon (bin/broker's drops it: no expiry address),
        // and the client never hands an expired one to a listener: no copy is applied after the horizon, when the
        // subscriber's inbox row may be purged.
        producer.setTimeToLive(Math.max(1, Duration.between(now, horizon).toMillis()));
        producer.send(session.createTopic(message.topic()), m);
    }
}
