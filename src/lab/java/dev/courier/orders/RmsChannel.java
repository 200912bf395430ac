package dev.courier.orders;

import dev.courier.client.CourierException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * RMS mode: the order (PLACED) and the producer helper's barrier row in one local transaction of the orders
 * database; the helper prepared the message over Courier's REST API first and confirms it after the commit. The
 * inventory service consumes it; {@link RmsRepliesListener} applies its reply.
 *
 * <p>The call to Courier is guarded as a client of any remote service would guard it (MicroProfile Fault
 * Tolerance): when half of the last 10 orders could not reach Courier, the circuit opens and for 5 s orders answer
 * 503 at once instead of each waiting out a call timeout; every refused order writes nothing. No retry here: the
 * call runs inside the order's transaction, and a prepare that failed may still have been recorded (a check-back
 * then finds no order and Courier cancels it). No {@code @Timeout} either: the helper's HTTP client already ends
 * the call after 10 s.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class RmsChannel {

    @Inject
    private OrderBook book;

    @Inject
    private RmsOrders rms;

    @Inject
    private OrderFaults faults;

    // The test seam's fault counts as a failed call: it stands for Courier unreachable.
    @CircuitBreaker(
            requestVolumeThreshold = 10,
            failureRatio = 0.5,
            delay = 5000,
            successThreshold = 2,
            failOn = {CourierException.class, OrderFaults.InjectedFault.class})
    @Fallback(
            fallbackMethod = "courierUnavailable",
            applyOn = {CourierException.class, OrderFaults.InjectedFault.class, CircuitBreakerOpenException.class})
    public OrderState place(Order order) {
        faults.checkpoint(OrderFaults.RMS_COURIER_CALL);
        // The prepare's round trip first, holding no connection (see ReliableProducer).
        try {
            rms.producer().send(RmsOrders.ORDERS_TOPIC, order.message());
        } catch (CourierException e) {
            if (e.status() >= 400 && e.status() < 500) {
                // Courier answered, and refused: this service is not registered or granted yet (the lab's set-up
                // does it once Courier answers). Not a failure to reach Courier: the circuit does not count it.
                throw new OrderProblem(503, "Not ready", "the rms mode is still setting up; retry in a moment");
            }
            throw e;
        }
        book.insert(order, OrderState.PLACED);
        return OrderState.PLACED;
    }

    /** @throws OrderProblem 503: Courier did not answer, or the circuit is open; nothing was written */
    OrderState courierUnavailable(Order order) {
        throw new OrderProblem(
                503, "Courier unavailable", "the orders service cannot reach Courier just now; retry in a few seconds");
    }
}
