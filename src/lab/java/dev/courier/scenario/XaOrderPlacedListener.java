package dev.courier.scenario;

import dev.courier.platform.FaultInjection;
import jakarta.annotation.Resource;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.json.JsonObject;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;

/**
 * XA mode's downstream step: the shipping service consumes the {@code OrderPlaced} events ({@code scenario.order-placed}, which the orders service sends in its XA transaction)
 * through a durable subscription of its own ({@code scenario-shipping}, activation spec
 * {@code courier/XaOrderPlacedListener} in the lab's configuration) and books each order's shipment
 * ({@link Shipments}), once: the shipment commits in a local transaction of the orders database, then the broker's
 * receive is acknowledged; a failure rolls the shipment back and the broker delivers the event again, and a copy
 * that comes again after a committed shipment books nothing. Every committed XA order is shipped exactly once; an
 * order that rolled back published nothing to ship.
 *
 * <p>Why not the container's XA transaction over the receive and the shipment (the XA baseline on this side too):
 * on this stack a container-managed MDB's transaction left in doubt by a crash is never recovered. Liberty's
 * recovery asks the activation spec for its XA resource every 10 s without end, and meanwhile holds every
 * transaction the crash left in doubt, the producers' too, prepared in the databases with their locks (seen in
 * {@code XaRecoveryCrashIT} on PostgreSQL). The order's own two-phase commit stays XA mode's point.
 */
@MessageDriven
@TransactionManagement(TransactionManagementType.BEAN)
public class XaOrderPlacedListener implements MessageListener {

    /** The checkpoint after the shipment's row: a failure there proves the row rolls back and the event comes again. */
    static final String AFTER_SHIPMENT = "scenario.xa.after-shipment";

    @Inject
    private Shipments shipments;

    @Inject
    private FaultInjection faults;

    @Resource
    private UserTransaction transaction;

    @Override
    public void onMessage(Message message) {
        try {
            transaction.begin();
            JsonObject event = RmsInventoryListener.json(message.getBody(String.class));
            shipments.ship(
                    event.getString("orderId"), event.getString("sku"), message.getIntProperty("JMSXDeliveryCount"));
            faults.checkpoint(AFTER_SHIPMENT);
            transaction.commit();
        } catch (Exception e) {
            rollBack();
            // Rethrown: the resource adapter rolls the receive back and the broker delivers the event again (and
            // dead-letters it after its delivery attempts).
            throw new IllegalStateException("shipping the order of " + message + " failed", e);
        }
    }

    private void rollBack() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (Exception e) {
            // The transaction ended anyway: the shipment is not committed, and the event comes again.
        }
    }
}
