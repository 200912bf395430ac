package dev.courier.queue;

import dev.courier.audit.Audited;
import dev.courier.platform.Json;
import dev.courier.platform.JsonRequest;
import dev.courier.platform.ProblemException;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code /api/queues/{queue}/dead}: the messages past their queue's attempt limit, kept with their history until an
 * admin replays them (back to ready, optionally with an edited payload and at a bounded rate) or purges them; only
 * an admin sees or touches them, and every replay and purge is audited. Errors: unknown queue or message 404;
 * invalid name, body or query parameter 400.
 */
@ApplicationScoped
@Path("queues")
@Produces(MediaType.APPLICATION_JSON)
public class DeadLetterResource {

    @Inject
    private DeadLetters dead;

    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("{queue}/dead")
    public JsonObject dead(
            @PathParam("queue") String name, @QueryParam("after") String after, @QueryParam("limit") String limit) {
        return QueueJson.page(dead.list(QueueName.of(name), after, QueueParameters.integer("limit", limit, 100)));
    }

    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("{queue}/dead/{id}")
    public JsonObject deadMessage(@PathParam("queue") String name, @PathParam("id") String id) {
        return QueueJson.message(
                dead.get(QueueName.of(name), id).orElseThrow(() -> QueueParameters.notFound(name, id)));
    }

    @Audited("queue.dead.replay")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Path("{queue}/dead/replay")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject replay(@PathParam("queue") String name, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        List<String> ids = request.strings("ids").orElse(List.of());
        boolean all = request.value("all").map(v -> v == JsonValue.TRUE).orElse(false);
        if (ids.isEmpty() != all) {
            throw ProblemException.invalid("give either 'ids' (a non-empty array) or \"all\": true");
        }
        Payload edited = request.value("payload").map(Payload::json).orElse(null);
        int replayed = dead.replay(
                QueueName.of(name),
                ids,
                request.number("ratePerSecond", 0.001, 1_000_000).orElse(null),
                edited);
        return Json.createObjectBuilder().add("replayed", replayed).build();
    }

    @Audited("queue.dead.purge")
    @RolesAllowed(Roles.ADMIN)
    @DELETE
    @Path("{queue}/dead")
    public JsonObject purge(@PathParam("queue") String name, @QueryParam("id") List<String> ids) {
        return Json.createObjectBuilder()
                .add("purged", dead.purge(QueueName.of(name), ids))
                .build();
    }
}
