package dev.courier.queue;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wakes this server's receivers waiting on a queue when another server's send to it committed, and forgets this
 * server's copy of a definition another server changed (see {@link WakeUps}). A non-durable subscription: each
 * server gets every wake-up while it runs, none while it is down (its receivers are gone then too). The topic is
 * named in {@code server.xml} ({@code jmsActivationSpec id="courier/WakeUpListener"}).
 */
@MessageDriven(
        activationConfig = {
            @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Topic")
        })
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class WakeUpListener implements MessageListener {

    private static final Logger LOG = Logger.getLogger(WakeUpListener.class.getName());

    @Inject
    private WakeUps wakeUps;

    @Inject
    private Waiters waiters;

    @Inject
    private QueueSpecs specs;

    @Override
    public void onMessage(Message message) {
        try {
            String origin = message.getStringProperty(WakeUps.ORIGIN);
            if (origin == null || wakeUps.isOwn(origin)) {
                return; // this server acted on it already (or it is no server's)
            }
            wakeUps.heard(origin); // whatever it says, that server is up and listening
            String kind = message.getStringProperty(WakeUps.KIND);
            if (kind == null || WakeUps.WAKE.equals(kind)) { // no kind: a server of a version before kinds
                waiters.wake(QueueName.of(message.getBody(String.class)));
            } else if (WakeUps.SETTINGS.equals(kind)) {
                specs.forget(QueueName.of(message.getBody(String.class)));
            } // PRESENCE, or a kind of a later version: nothing more to do
        } catch (JMSException | RuntimeException e) {
            // A wake-up is a hint: a bad one is dropped, never redelivered; waiters still poll.
            LOG.log(Level.FINE, "ignored a malformed queue wake-up", e);
        }
    }
}
