package dev.courier.orders;

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
import jakarta.json.JsonReader;
import jakarta.transaction.UserTransaction;
import java.io.StringReader;

/**
 * The orders service's consumer of the inventory's replies (RMS mode, {@code courier.scenario.rms-reply=reliable}):
 * a message-driven bean on {@code scenario-replies.orders} (activation spec {@code lab-orders/RmsRepliesListener},
 * started by the lab's set-up once the subscriber exists). The reply's inbox row and the order's outcome commit in
 * one local transaction of the orders database, then the copy is acknowledged: a copy that comes again changes
 * nothing.
 */
@MessageDriven
@TransactionManagement(TransactionManagementType.BEAN)
public class RmsRepliesListener implements MessageListener {

    @Inject
    private RmsOrders rms;

    @Inject
    private OrderBook book;

    @Resource
    private UserTransaction transaction;

    @Override
    public void onMessage(Message message) {
        try {
            rms.replies().consumeInOwnTransaction(transaction, message, (id, payload) -> {
                JsonObject body;
                try (JsonReader reader = Json.createReader(new StringReader(payload))) {
                    body = reader.readObject();
                }
                book.settle(body.getString("orderId"), OrderState.valueOf(body.getString("outcome")));
            });
        } catch (JMSException e) {
            throw new IllegalStateException("reading " + message + " failed", e);
        }
    }
}
