package dev.courier.queue;

import dev.courier.access.Grants;
import dev.courier.audit.Audited;
import dev.courier.platform.Backoff;
import dev.courier.platform.Json;
import dev.courier.platform.JsonRequest;
import dev.courier.platform.ProblemException;
import dev.courier.platform.ProblemMapper;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /api/queues} and {@code /api/queues/{queue}}: the queue definitions. A definition is created or replaced
 * whole, in its own transaction, and a definition that leaves grants out keeps the queue's, so re-sending a
 * definition never opens a queue; only an admin defines or drops. Errors: unknown queue 404; invalid name or body
 * 400; too many queues 409. The queue's messages, receives, leases and dead letters are served under the same
 * path by {@link QueueMessageResource}, {@link ReceiveResource}, {@link LeaseResource} and
 * {@link DeadLetterResource}.
 */
@ApplicationScoped
@Path("queues")
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {

    /*
     * The operations of the queue resources that answer 204 (nothing on success, a problem on failure) also
     * produce application/problem+json, so a client that accepts only that (what generated clients send for such
     * an operation) gets through instead of a 406. Two entries: RESTEasy does not split one comma-separated string.
     */

    @Inject
    private Queues queues;

    @Inject
    private Waiters waiters;

    @RolesAllowed({Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER})
    @GET
    public JsonObject list() {
        JsonArrayBuilder all = Json.createArrayBuilder();
        queues.list()
                .forEach(info -> all.add(
                        QueueJson.queue(info, waiters.waiting(info.spec().name()))));
        return Json.createObjectBuilder().add("queues", all).build();
    }

    @Audited("queue.define")
    @RolesAllowed(Roles.ADMIN)
    @PUT
    @Path("{queue}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response define(@PathParam("queue") String name, JsonValue body) {
        QueueName queueName = QueueName.of(name);
        JsonRequest request = JsonRequest.of(body == null ? JsonValue.EMPTY_JSON_OBJECT : body);
        request.string("name").filter(n -> !n.equals(name)).ifPresent(n -> {
            throw ProblemException.invalid("'name' in the body must match the queue in the path");
        });
        Backoff backoff = request.object("backoff")
                .map(b -> new Backoff(
                        b.seconds("initialSeconds", 0, 86_400).orElse(Backoff.DEFAULT.initial()),
                        b.number("multiplier", 1, 100).orElse(Backoff.DEFAULT.multiplier()),
                        b.seconds("maxSeconds", 0, 86_400).orElse(Backoff.DEFAULT.max())))
                .orElse(Backoff.DEFAULT);
        QueueSpec spec = new QueueSpec(
                queueName,
                request.seconds("leaseSeconds", 0.001, QueueSpec.MAX_LEASE.toSeconds())
                        .orElse(QueueSpec.DEFAULT_LEASE),
                request.integer("maxAttempts", 1, 1000).orElse(QueueSpec.DEFAULT_MAX_ATTEMPTS),
                backoff,
                request.value("grants").map(Grants::fromJson).orElse(Grants.NONE));
        // A definition that leaves grants out keeps the queue's: re-sending a definition must not open a queue.
        boolean created = queues.define(
                spec, !request.has("grants"), request.string("database").orElse(null));
        return Response.status(created ? 201 : 200)
                .entity(QueueJson.queue(queues.get(queueName), waiters.waiting(queueName)))
                .build();
    }

    @RolesAllowed({Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER})
    @GET
    @Path("{queue}")
    public JsonObject get(@PathParam("queue") String name) {
        QueueName queueName = QueueName.of(name);
        return QueueJson.queue(queues.get(queueName), waiters.waiting(queueName));
    }

    @Audited("queue.drop")
    @RolesAllowed(Roles.ADMIN)
    @DELETE
    @Path("{queue}")
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see above
    public void drop(@PathParam("queue") String name) {
        queues.drop(QueueName.of(name));
    }
}
