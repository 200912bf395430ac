package dev.courier.scenario;

import dev.courier.audit.Audited;
import dev.courier.client.CallSignature;
import dev.courier.platform.Json;
import dev.courier.platform.JsonRequest;
import dev.courier.platform.ProblemException;
import dev.courier.web.Roles;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/**
 * {@code /api/scenario}: the lab's handles on the services Courier's lab WAR runs, and on both databases. {@code POST
 * stock} {@code {"sku", "quantity"}} (the inventory's); {@code GET consistency} (orders and inventory databases);
 * {@code GET|PUT slowdown} {@code {"factor"}} (the slowed inventory instance of the rms and queue modes); {@code GET
 * check-back/{service}} (both services' check-back URLs). Orders are placed with the orders service, an
 * application of its own ({@code /lab-orders/api/orders}).
 */
@ApplicationScoped
@Path("scenario")
@Produces(MediaType.APPLICATION_JSON)
public class ScenarioResource {

    @Inject
    private Inventory inventory;

    @Inject
    private Consistency consistency;

    @Inject
    private RmsParties parties;

    @Inject
    private SlowConsumer slow;

    @RolesAllowed(Roles.ADMIN)
    @Audited("scenario.stock")
    @POST
    @Path("stock")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject stock(JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        String sku = request.string("sku").orElseThrow(() -> ProblemException.invalid("'sku' is required"));
        int quantity = request.integer("quantity", 0, 1_000_000_000)
                .orElseThrow(() -> ProblemException.invalid("'quantity' is required"));
        new Order("-", Mode.XA, sku, 1); // validates the sku, before any transaction (a 400 is no rollback)
        inventory.stock(sku, quantity);
        return Json.createObjectBuilder()
                .add("sku", sku)
                .add("available", quantity)
                .build();
    }

    /** The slowed inventory instance's factor ({@link SlowConsumer}): {@code {"factor"}}, 1 = normal speed. */
    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("slowdown")
    public JsonObject slowdown() {
        return Json.createObjectBuilder().add("factor", slow.factor()).build();
    }

    /**
     * Slows one inventory instance of the rms and queue modes down ({@code {"factor": 1..100}}; 1 restores it), for
     * the lab's fault runs; xa's in-line inventory work is the orders service's ({@code /lab-orders/api/xa/slowdown}).
     */
    @RolesAllowed(Roles.ADMIN)
    @Audited("scenario.slowdown")
    @PUT
    @Path("slowdown")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject slowDown(JsonValue body) {
        slow.slowDown(JsonRequest.of(body)
                .integer("factor", 1, SlowConsumer.MAX_FACTOR)
                .orElseThrow(() -> ProblemException.invalid("'factor' is required")));
        return slowdown();
    }

    /**
     * The services' check-back endpoints (RMS mode), answered from their barrier tables; called with no
     * transaction, as {@link dev.courier.client.BarrierCheckBack} requires. Open to Courier's unauthenticated
     * calls, and like any producer it answers only a call signed with the service's secret (401 otherwise).
     */
    @PermitAll
    @GET
    @Path("check-back/{service}")
    public Response checkBack(
            @PathParam("service") String service,
            @QueryParam("id") String id,
            @Context UriInfo uri,
            @Context HttpHeaders headers)
            throws java.sql.SQLException {
        javax.sql.DataSource db = switch (service) {
            case "orders" -> parties.ordersDb();
            case "inventory" -> parties.inventoryDb();
            default -> throw new ProblemException(404, "Unknown service", "there is no service '" + service + "'");
        };
        java.net.URI request = uri.getRequestUri();
        String target = request.getRawPath() + (request.getRawQuery() == null ? "" : "?" + request.getRawQuery());
        if (!parties.signedByCourier(
                service,
                headers.getHeaderString(CallSignature.TIMESTAMP),
                headers.getHeaderString(CallSignature.SIGNATURE),
                "GET",
                target)) {
            throw new ProblemException(
                    401, "Bad signature", "a check-back must carry Courier's signature for this service");
        }
        if (id == null || id.isBlank() || id.length() > 36) {
            throw ProblemException.invalid("'id' must be a message id");
        }
        String answer = new dev.courier.client.BarrierCheckBack(db).answer(id).json();
        Response.ResponseBuilder ok = Response.ok(answer, MediaType.APPLICATION_JSON);
        parties.signAnswer(service, headers.getHeaderString(CallSignature.SIGNATURE), answer)
                .forEach(ok::header);
        return ok.build();
    }

    /**
     * Per mode and in total: orders, reserved, rejected, pending, missing, duplicated, orphaned; negativeStock;
     * shipping (XA mode's shipments): shipped, orphaned.
     */
    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("consistency")
    public JsonObject consistency() {
        Consistency.Report report = consistency.check();
        JsonObjectBuilder modes = Json.createObjectBuilder();
        report.modes().forEach((mode, counts) -> modes.add(mode.wire(), counts(counts)));
        return Json.createObjectBuilder()
                .add("modes", modes)
                .add("total", counts(report.total()))
                .add("negativeStock", report.negativeStock())
                .add(
                        "shipping",
                        Json.createObjectBuilder()
                                .add("shipped", report.shipping().shipped())
                                .add("orphaned", report.shipping().orphaned()))
                .build();
    }

    private static JsonObject counts(Consistency.Counts c) {
        return Json.createObjectBuilder()
                .add("orders", c.orders())
                .add("reserved", c.reserved())
                .add("rejected", c.rejected())
                .add("pending", c.pending())
                .add("missing", c.missing())
                .add("duplicated", c.duplicated())
                .add("orphaned", c.orphaned())
                .build();
    }
}
