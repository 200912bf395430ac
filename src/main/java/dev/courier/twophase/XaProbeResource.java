package dev.courier.twophase;

import dev.courier.audit.Audited;
import dev.courier.platform.Json;
import dev.courier.platform.ProblemException;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/**
 * {@code /api/twophase/probes}: drives the XA probe over HTTP. {@code POST} records a body and sends its
 * message in one XA transaction (201); {@code GET /{id}} shows the record and, once the listener processed the
 * message, its receipt.
 */
@ApplicationScoped
@Path("twophase/probes")
@Produces(MediaType.APPLICATION_JSON)
public class XaProbeResource {

    /** Request body of {@code POST}: {@code {"body": "..."}}. */
    public record ProbeRequest(String body) {}

    @Inject
    private XaProbe probe;

    @RolesAllowed(Roles.ADMIN)
    @Audited("xa.probe")
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(ProbeRequest request, @Context UriInfo uri) {
        if (request == null) {
            throw ProblemException.invalid("request body {\"body\": \"...\"} is required");
        }
        ProbeRecord record = probe.record(request.body());
        return Response.created(uri.getAbsolutePathBuilder().path(record.id()).build())
                .entity(view(record).build().toString())
                .build();
    }

    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("{id}")
    public String get(@PathParam("id") String id) {
        ProbeRecord record =
                probe.find(id).orElseThrow(() -> new ProblemException(404, "Not found", "no probe record " + id));
        JsonObjectBuilder view = view(record);
        probe.receipt(id)
                .ifPresentOrElse(
                        r -> view.add(
                                "receipt",
                                Json.createObjectBuilder()
                                        .add("messageId", r.messageId())
                                        .add("body", r.body())
                                        .add("deliveryCount", r.deliveryCount())
                                        .add("receivedAt", r.receivedAt().toString())),
                        () -> view.addNull("receipt"));
        return view.build().toString();
    }

    private static JsonObjectBuilder view(ProbeRecord record) {
        return Json.createObjectBuilder()
                .add("id", record.id())
                .add("body", record.body())
                .add("createdAt", record.createdAt().toString());
    }
}
