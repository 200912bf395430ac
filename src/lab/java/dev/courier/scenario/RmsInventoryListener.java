package dev.courier.scenario;

import jakarta.annotation.Resource;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.transaction.UserTransaction;
import java.io.StringReader;

/**
 * The inventory service's consumer of the RMS mode's orders: a message-driven bean on the subscriber queue
 * {@code scenario-orders.inventory} (activation spec {@code courier/RmsInventoryListener} in the lab's
 * configuration). Each order commits its inbox row, its reservation (or nothing, out of stock) and the reply's
 * barrier row in one local transaction of the inventory database; then the broker's copy is acknowledged and the
 * helpers report it consumed and confirm the reply. A redelivered copy finds its inbox row and changes nothing.
 */
@MessageDriven
@TransactionManagement(TransactionManagementType.BEAN)
public class RmsInventoryListener implements MessageListener {

    @Inject
    private RmsParties parties;

    @Inject
    private Inventory inventory;

    @Inject
    private SlowConsumer slow;

    @Resource
    private UserTransaction transaction;

    @Override
    public void onMessage(Message message) {
        long start = System.nanoTime();
        String[] orderId = {null};
        try {
            parties.inventoryInbox().consumeInOwnTransaction(transaction, message, (id, payload) -> {
                JsonObject body = json(payload);
                Order order =
                        new Order(body.getString("orderId"), Mode.RMS, body.getString("sku"), body.getInt("quantity"));
                orderId[0] = order.id();
                OrderState outcome = inventory.reserve(order);
                // No @Retry on the reply's prepare: it runs inside this message's transaction. A failure rolls the
                // reservation back with it, the helper reports the message failed, and Courier delivers it again
                // after its backoff: the retry, with a fresh transaction.
                parties.inventory()
                        .send(
                                RmsParties.REPLIES_TOPIC,
                                Json.createObjectBuilder()
                                        .add("orderId", order.id())
                                        .add("outcome", outcome.name())
                                        .build()
                                        .toString());
            });
        } catch (JMSException e) {
            throw new IllegalStateException("reading " + message + " failed", e);
        }
        if (orderId[0] != null) {
            // Half the orders meet the inventory instance a slowdown slows (PUT /api/scenario/slowdown).
            slow.pace(Mode.RMS, Math.floorMod(orderId[0].hashCode(), 2), System.nanoTime() - start);
        }
    }

    static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
