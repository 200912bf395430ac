package dev.courier.orders;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /lab-orders/api/orders}: {@code POST ?mode=xa|rms|queue} {@code {"sku"?, "quantity"?}} → 201 {@code
 * {"orderId", "mode", "state"}} (409 out of stock in XA mode, 501 queue mode without PostgreSQL, 503 Courier not
 * reachable or not set up); {@code GET {id}} → {@code {"orderId", "state", "shipment"}}. Callers log in as Courier's
 * users do (the server's registry): orders are placed by a producer, read by any of Courier's roles.
 */
@ApplicationScoped
@Path("orders")
@Produces(MediaType.APPLICATION_JSON)
public class OrdersResource {

    static final String ADMIN = "courier-admin";
    static final String PRODUCER = "courier-producer";
    static final String CONSUMER = "courier-consumer";

    @Inject
    private Orders orders;

    @Inject
    private OrderBook book;

    @RolesAllowed(PRODUCER)
    @POST
    public Response place(@QueryParam("mode") String mode, String body) {
        OrderRequest request = OrderRequest.parse(body);
        Orders.Placed placed = orders.place(
                Mode.of(mode),
                request.string("sku").orElse(null),
                request.integer("quantity", 1, 1000).orElse(1));
        return Response.status(201)
                .entity(Json.createObjectBuilder()
                        .add("orderId", placed.orderId())
                        .add("mode", placed.mode().wire())
                        .add("state", placed.state().name())
                        .build())
                .build();
    }

    @RolesAllowed({ADMIN, PRODUCER, CONSUMER})
    @GET
    @Path("{id}")
    public JsonObject order(@PathParam("id") String id) {
        OrderState state = orders.state(id);
        // Null until XA mode's shipping service has consumed the order's event; always null in the other modes.
        JsonValue shipment = book.shipment(id)
                .<JsonValue>map(s -> Json.createObjectBuilder()
                        .add("delivery", s.delivery())
                        .add("shippedAt", s.shippedAt().toString())
                        .build())
                .orElse(JsonValue.NULL);
        return Json.createObjectBuilder()
                .add("orderId", id)
                .add("state", state.name())
                .add("shipment", shipment)
                .build();
    }
}
