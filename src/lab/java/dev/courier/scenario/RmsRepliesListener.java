package dev.courier.scenario;

import jakarta.annotation.Resource;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.json.JsonObject;
import jakarta.transaction.UserTransaction;

/**
 * The orders service's consumer of the inventory's replies: a message-driven bean on {@code
 * scenario-replies.orders} (activation spec {@code courier/RmsRepliesListener}). The reply's inbox row and the
 * order's outcome commit in one local transaction of the orders database, then the copy is acknowledged.
 */
@MessageDriven
@TransactionManagement(TransactionManagementType.BEAN)
public class RmsRepliesListener implements MessageListener {

    @Inject
    private RmsParties parties;

    @Inject
    private OrderBook book;

    @Resource
    private UserTransaction transaction;

    @Override
    public void onMessage(Message message) {
        try {
            parties.ordersInbox().consumeInOwnTransaction(transaction, message, (id, payload) -> {
                JsonObject body = RmsInventoryListener.json(payload);
                book.settle(body.getString("orderId"), OrderState.valueOf(body.getString("outcome")));
            });
        } catch (JMSException e) {
            throw new IllegalStateException("reading " + message + " failed", e);
        }
    }
}
