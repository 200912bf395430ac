package dev.courier.reliable;

import dev.courier.access.Principals;
import dev.courier.audit.Audited;
import dev.courier.platform.Json;
import dev.courier.platform.JsonRequest;
import dev.courier.platform.ProblemException;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code /api/producers}: register upstream applications and see how their check-backs go. */
@ApplicationScoped
@Path("producers")
@Produces(MediaType.APPLICATION_JSON)
public class ProducerResource {

    @Inject
    private Producers producers;

    /**
     * {@code {"name", "checkBackUrl", "notificationUrl"?, "principals"?}} → 201 created, with the
     * {@code signingSecret} this once; 200 updated (the secret stays, and the principals when none are given).
     */
    @Audited("producer.register")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response register(JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        String name = request.string("name").orElseThrow(() -> ProblemException.invalid("'name' is required"));
        String checkBack = request.string("checkBackUrl")
                .orElseThrow(() -> ProblemException.invalid("'checkBackUrl' is required"));
        Producers.Registration registered = producers.register(
                name,
                checkBack,
                request.string("notificationUrl").orElse(null),
                request.value("principals").map(Principals::fromJson).orElse(null));
        JsonObject producer = ReliableJson.producer(producers.status(name));
        return Response.status(registered.created() ? 201 : 200)
                .entity(registered
                        .secret()
                        .map(secret -> Json.createObjectBuilder(producer)
                                .add("signingSecret", secret)
                                .build())
                        .orElse(producer))
                .build();
    }

    /** A new signing secret for the producer, shown this once: {@code {"signingSecret"}}; 404 for no such producer. */
    @Audited("producer.secret.replace")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Path("{name}/secret")
    public JsonObject replaceSecret(@PathParam("name") String name) {
        return Json.createObjectBuilder()
                .add("signingSecret", producers.replaceSecret(name))
                .build();
    }

    @RolesAllowed(Roles.ADMIN)
    @GET
    public JsonObject list() {
        JsonArrayBuilder all = Json.createArrayBuilder();
        producers.list().forEach(p -> all.add(ReliableJson.producerFields(p)));
        return Json.createObjectBuilder().add("producers", all).build();
    }

    /** The producer with its circuit state, pending and due check-backs and last error. */
    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("{name}")
    public JsonObject get(@PathParam("name") String name) {
        return ReliableJson.producer(producers.status(name));
    }
}
