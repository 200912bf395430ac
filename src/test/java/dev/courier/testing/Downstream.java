package dev.courier.testing;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;

/**
 * A downstream queue worker built on {@link dev.courier.client.ReliableConsumer}: takes one message from its
 * subscriber queue and applies its effect (a row of test_effect), in one XA transaction over the broker and the
 * database.
 */
@Stateless
public class Downstream {

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Inject
    private Apps apps;

    /**
     * Consumes one message of {@code topic::topic.subscriber}, if one comes within two seconds.
     *
     * @param fail make the effect fail (the transaction rolls back, the message goes back to the queue)
     * @return "id processed|duplicate", or null when no message came
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public String consumeOne(String topic, String subscriber, boolean fail, boolean batched) throws Exception {
        try (JMSContext jms = connectionFactory.createContext();
                JMSConsumer consumer = jms.createConsumer(jms.createQueue(topic + "::" + topic + "." + subscriber))) {
            Message message = consumer.receive(2000);
            if (message == null) {
                return null;
            }
            String[] id = new String[1];
            boolean processed = (batched ? apps.batchingConsumer(subscriber) : apps.consumer(subscriber))
                    .consume(message, (messageId, payload) -> {
                        id[0] = messageId;
                        effect(messageId, subscriber);
                        if (fail) {
                            throw new IllegalStateException("the effect failed (test)");
                        }
                    });
            return message.getStringProperty("courierMessageId") + (processed ? " processed" : " duplicate");
        }
    }

    private void effect(String messageId, String subscriber) {
        InboxListeners.recordEffect(apps.dataSource(), messageId, subscriber);
    }
}
