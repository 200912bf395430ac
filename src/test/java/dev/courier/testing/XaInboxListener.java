package dev.courier.testing;

import jakarta.annotation.Resource;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.MessageDrivenContext;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

/**
 * The consumer MDB of the XA mode: the container's transaction ({@code REQUIRED}) over the broker's receive and
 * the database, {@link dev.courier.client.ReliableConsumer#consume} inside it. A failed effect marks the
 * transaction for rollback, so the broker redelivers the copy. Activation spec {@code courier/XaInboxListener},
 * on queue {@code mdb-xa.sink}.
 */
@MessageDriven
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class XaInboxListener implements MessageListener {

    @Inject
    private Apps apps;

    @Resource
    private MessageDrivenContext context;

    @Override
    public void onMessage(Message message) {
        try {
            apps.batchingConsumer(InboxListeners.SUBSCRIBER).consume(message, InboxListeners.effect(apps.dataSource()));
        } catch (Exception e) {
            context.setRollbackOnly();
        }
    }
}
