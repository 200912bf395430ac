package dev.courier.twophase;

import dev.courier.platform.FaultInjection;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;

/**
 * Consumes the probe queue and writes a {@link ProbeReceipt}, in one XA transaction with the message's
 * acknowledgement: a failure rolls both back and the broker redelivers; the message is never lost.
 * Processing is idempotent (one receipt per record) in case a broker ever delivers twice.
 *
 * <p>The queue is named in {@code server.xml} ({@code jmsActivationSpec id="courier/XaProbeListener"}).
 */
@MessageDriven(
        activationConfig = {
            @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue")
        })
public class XaProbeListener implements MessageListener {

    static final String BEFORE_RECEIPT = "twophase.listener.before-receipt";

    @PersistenceContext(unitName = "courier")
    private EntityManager em;

    @Inject
    private FaultInjection faults;

    @Inject
    private Clock clock;

    @Override
    public void onMessage(Message message) {
        try {
            String recordId = message.getStringProperty(XaProbe.RECORD_ID);
            if (recordId == null) {
                throw new IllegalArgumentException("probe message " + message.getJMSMessageID() + " has no record id");
            }
            faults.checkpoint(BEFORE_RECEIPT);
            if (em.find(ProbeReceipt.class, recordId) == null) {
                em.persist(new ProbeReceipt(
                        recordId,
                        message.getJMSMessageID(),
                        message.getBody(String.class),
                        message.getIntProperty("JMSXDeliveryCount"),
                        clock.instant()));
            }
        } catch (JMSException e) {
            // Rethrow: the container rolls back and the broker redelivers (or dead-letters) the message.
            throw new IllegalStateException("cannot read probe message", e);
        }
    }
}
