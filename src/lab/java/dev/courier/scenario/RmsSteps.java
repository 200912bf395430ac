package dev.courier.scenario;

import dev.courier.client.ReliableConsumer;
import dev.courier.platform.Json;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.json.JsonObject;
import java.io.StringReader;

/**
 * One message per transaction for the RMS mode's consumers. The inventory side: the message, the inbox row, the
 * reservation (or nothing, out of stock) and the reply's barrier row commit together; the helpers then report
 * consumed and confirm the reply. The orders side: the reply, its inbox row and the order's outcome commit together.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class RmsSteps {

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Inject
    private RmsParties parties;

    @Inject
    private Inventory inventory;

    @Inject
    private OrderBook book;

    /** @return false when no order message came within a second */
    public boolean reserveOne() {
        try (JMSContext jms = connectionFactory.createContext();
                JMSConsumer consumer =
                        jms.createConsumer(jms.createQueue(queue(RmsParties.ORDERS_TOPIC, "inventory")))) {
            Message message = consumer.receive(1000);
            if (message == null) {
                return false;
            }
            consume(parties.inventoryInbox(), message, (id, payload) -> {
                JsonObject body = json(payload);
                Order order =
                        new Order(body.getString("orderId"), Mode.RMS, body.getString("sku"), body.getInt("quantity"));
                OrderState outcome = inventory.reserve(order);
                parties.inventory()
                        .send(
                                RmsParties.REPLIES_TOPIC,
                                Json.createObjectBuilder()
                                        .add("orderId", order.id())
                                        .add("outcome", outcome.name())
                                        .build()
                                        .toString());
            });
            return true;
        }
    }

    /** @return false when no reply came within a second */
    public boolean settleOne() {
        try (JMSContext jms = connectionFactory.createContext();
                JMSConsumer consumer = jms.createConsumer(jms.createQueue(queue(RmsParties.REPLIES_TOPIC, "orders")))) {
            Message message = consumer.receive(1000);
            if (message == null) {
                return false;
            }
            consume(parties.ordersInbox(), message, (id, payload) -> {
                JsonObject body = json(payload);
                book.settle(body.getString("orderId"), OrderState.valueOf(body.getString("outcome")));
            });
            return true;
        }
    }

    /** Runs the consumer helper; any failure is unchecked, so the container rolls the transaction back. */
    private static void consume(ReliableConsumer consumer, Message message, ReliableConsumer.Handler handler) {
        try {
            consumer.consume(message, handler);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("consuming " + message + " failed", e);
        }
    }

    private static String queue(String topic, String subscriber) {
        return topic + "::" + topic + "." + subscriber;
    }

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
