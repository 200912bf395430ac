package dev.courier.orders;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /lab-orders/api/test/faults} ({@link OrderFaults}), for the tests only: {@code POST {point}?times=N} arms a
 * checkpoint (once by default), {@code GET {point}/held} → {@code {"left"}}, {@code DELETE} disarms all. 404 unless
 * {@code courier.lab.orders.test-faults} is {@code true}.
 */
@ApplicationScoped
@Path("test/faults")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(OrdersResource.ADMIN)
public class OrderFaultsResource {

    @Inject
    private OrderFaults faults;

    @POST
    @Path("{point}")
    public Response arm(@PathParam("point") String point, @QueryParam("times") Integer times) {
        enabled();
        faults.arm(point, times == null ? 1 : times);
        return Response.noContent().build();
    }

    @GET
    @Path("{point}/held")
    public JsonObject left(@PathParam("point") String point) {
        enabled();
        return Json.createObjectBuilder().add("left", faults.left(point)).build();
    }

    @DELETE
    public Response disarm() {
        enabled();
        faults.disarm();
        return Response.noContent().build();
    }

    private void enabled() {
        if (!faults.enabled()) {
            throw new OrderProblem(404, "Not found", "the test seam is off (courier.lab.orders.test-faults)");
        }
    }
}
