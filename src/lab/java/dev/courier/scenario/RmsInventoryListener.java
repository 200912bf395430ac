package dev.courier.scenario;

import dev.courier.platform.FaultInjection;
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
 * configuration). Each order commits its inbox row, its reservation (or nothing, out of stock) and its reply in one
 * local transaction of the inventory database; then the broker's copy is acknowledged and the helper reports it
 * consumed. The reply goes as {@code courier.scenario.rms-reply} says: {@code reliable}, a second
 * reliable message (its barrier row in that transaction, confirmed after it) that the orders service's {@code RmsRepliesListener}
 * applies; {@code direct}, the outcome recorded in that transaction and written on the order before the copy is
 * acknowledged ({@link RmsDirectReply}). A redelivered copy finds its inbox row and reserves nothing again.
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

    @Inject
    private RmsDirectReply reply;

    @Inject
    private FaultInjection faults;

    @Resource
    private UserTransaction transaction;

    /** The checkpoint between the inventory's commit and the direct reply (a crash there, in the tests). */
    static final String BEFORE_DIRECT_REPLY = "scenario.rms.before-direct-reply";

    @Override
    public void onMessage(Message message) {
        long start = System.nanoTime();
        Order order = order(message); // null: no order in it; the handler fails on it and reports the failure
        boolean direct = parties.directReply();
        try {
            parties.inventoryInbox().consumeInOwnTransaction(transaction, message, (id, payload) -> {
                if (order == null) {
                    throw new IllegalArgumentException("message " + id + " carries no order: " + payload);
                }
                OrderState outcome = inventory.reserve(order);
                if (direct) {
                    inventory.recordOutcome(order.id(), outcome);
                    return;
                }
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
        if (order == null) {
            return;
        }
        if (direct) {
            // Also for a copy the inbox skipped: its outcome may never have reached the order.
            faults.checkpoint(BEFORE_DIRECT_REPLY);
            reply.settle(order.id());
        }
        // Half the orders meet the inventory instance a slowdown slows (PUT /api/scenario/slowdown).
        slow.pace(Mode.RMS, Math.floorMod(order.id().hashCode(), 2), System.nanoTime() - start);
    }

    private static Order order(Message message) {
        try {
            JsonObject body = json(message.getBody(String.class));
            return new Order(body.getString("orderId"), Mode.RMS, body.getString("sku"), body.getInt("quantity"));
        } catch (JMSException | RuntimeException e) {
            return null;
        }
    }

    static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
