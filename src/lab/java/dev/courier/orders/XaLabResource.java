package dev.courier.orders;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /lab-orders/api/xa}, the lab operator's handles on XA mode, whose inventory work runs here: {@code GET|DELETE
 * lock-holds} ({@link XaLockHolds}) and {@code GET|PUT slowdown} {@code {"factor"}} ({@link XaSlowdown}).
 */
@ApplicationScoped
@Path("xa")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(OrdersResource.ADMIN)
public class XaLabResource {

    @Inject
    private XaLockHolds lockHolds;

    @Inject
    private XaSlowdown slow;

    /** How long xa transactions held their stock row's lock since the last reset. */
    @GET
    @Path("lock-holds")
    public JsonObject xaLockHolds() {
        return lockHolds.summary();
    }

    @DELETE
    @Path("lock-holds")
    public Response resetXaLockHolds() {
        lockHolds.reset();
        return Response.noContent().build();
    }

    /** XA mode's slowed inventory instance: {@code {"factor"}}, 1 = normal speed. */
    @GET
    @Path("slowdown")
    public JsonObject slowdown() {
        return Json.createObjectBuilder().add("factor", slow.factor()).build();
    }

    /** Slows XA mode's inventory work for half of the orders ({@code {"factor": 1..100}}; 1 restores it). */
    @PUT
    @Path("slowdown")
    public JsonObject slowDown(String body) {
        slow.slowDown(OrderRequest.parse(body)
                .integer("factor", 1, XaSlowdown.MAX_FACTOR)
                .orElseThrow(() -> OrderProblem.invalid("'factor' is required")));
        return slowdown();
    }
}
