package dev.courier.scenario;

import dev.courier.platform.FaultInjection;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.json.JsonObject;

/**
 * XA mode's downstream step: the shipping service consumes the {@code OrderPlaced} events ({@link XaChannel#EVENTS})
 * through a durable subscription of its own ({@code scenario-shipping}, activation spec
 * {@code courier/XaOrderPlacedListener} in the lab's configuration) and books each order's shipment
 * ({@link Shipments}). Container-managed, {@code REQUIRED}: the broker's receive and the shipment's row in the
 * orders database commit together by two-phase commit, or roll back together and the broker delivers the event
 * again. Every committed XA order is shipped exactly once; an order that rolled back published nothing to ship.
 */
@MessageDriven
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class XaOrderPlacedListener implements MessageListener {

    /** The checkpoint after the shipment's row: a failure there proves the row rolls back with the receive. */
    static final String AFTER_SHIPMENT = "scenario.xa.after-shipment";

    @Inject
    private Shipments shipments;

    @Inject
    private FaultInjection faults;

    @Override
    public void onMessage(Message message) {
        try {
            JsonObject event = RmsInventoryListener.json(message.getBody(String.class));
            shipments.ship(
                    event.getString("orderId"), event.getString("sku"), message.getIntProperty("JMSXDeliveryCount"));
            faults.checkpoint(AFTER_SHIPMENT);
        } catch (JMSException e) {
            // Rethrown: the container rolls the transaction back and the broker delivers the event again (and
            // dead-letters it after its delivery attempts).
            throw new IllegalStateException("reading " + message + " failed", e);
        }
    }
}
