package dev.courier.testing;

import jakarta.annotation.Resource;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.transaction.UserTransaction;

/**
 * The consumer MDB of the default mode, as an application writes it: bean-managed, the inbox row and the effect in
 * one local transaction ({@link dev.courier.client.ReliableConsumer#consumeInOwnTransaction}), the broker's
 * acknowledgement after {@code onMessage} returns. Activation spec {@code courier/LocalInboxListener}, on queue
 * {@code mdb-local.sink} (src/test/liberty/test-listeners.xml).
 */
@MessageDriven
@TransactionManagement(TransactionManagementType.BEAN)
public class LocalInboxListener implements MessageListener {

    @Inject
    private Apps apps;

    @Resource
    private UserTransaction transaction;

    @Override
    public void onMessage(Message message) {
        try {
            String id = message.getStringProperty("courierMessageId");
            int before = InboxListeners.handled(id);
            boolean applied = apps.batchingConsumer(InboxListeners.SUBSCRIBER)
                    .consumeInOwnTransaction(transaction, message, InboxListeners.effect(apps.dataSource()));
            InboxListeners.afterCommit(id, applied, before);
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
