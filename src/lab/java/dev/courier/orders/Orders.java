package dev.courier.orders;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;

/**
 * Places orders, the same way for every mode apart from the mechanism that carries them to the inventory. Each
 * call is its own transaction (the channel's). XA answers RESERVED or 409 out of stock; the asynchronous modes
 * answer PLACED, and the order becomes RESERVED or REJECTED when the inventory has answered.
 */
// A plain bean, not a session bean outside a transaction: a 404 thrown there would end a local transaction
// containment rolled back, which Liberty logs at ERROR with an incident file.
@ApplicationScoped
public class Orders {

    @Inject
    private XaChannel xa;

    @Inject
    private QueueChannel queue;

    @Inject
    private RmsChannel rms;

    @Inject
    private XaAdmission admission;

    @Inject
    private OrderBook book;

    /** @throws OrderProblem 400 bad sku or quantity; 409 out of stock (XA); 503 not reachable or ready */
    public Placed place(Mode mode, String sku, int quantity) {
        Order order = new Order(UUID.randomUUID().toString(), mode, sku == null ? Order.DEFAULT_SKU : sku, quantity);
        OrderState state = switch (mode) {
            case XA -> admission.admit(() -> xa.place(order));
            case RMS -> rms.place(order);
            case QUEUE -> queue.place(order);
        };
        return new Placed(order.id(), mode, state);
    }

    /** The order's state. @throws OrderProblem 404 for an unknown order */
    public OrderState state(String orderId) {
        return book.state(orderId)
                .orElseThrow(() -> new OrderProblem(404, "Unknown order", "there is no order '" + orderId + "'"));
    }

    /** What placing an order answered. */
    public record Placed(String orderId, Mode mode, OrderState state) {}
}
