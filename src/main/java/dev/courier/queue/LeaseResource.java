package dev.courier.queue;

import dev.courier.access.Caller;
import dev.courier.platform.Json;
import dev.courier.platform.JsonRequest;
import dev.courier.platform.ProblemException;
import dev.courier.platform.ProblemMapper;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Duration;

/**
 * {@code /api/queues/{queue}/messages/{id}/renew} and {@code .../release}: what a receiver does with a lease it
 * holds short of acknowledging it — extend it, or give the message back for a later delivery. Either acts only
 * with the message's current lease token, checked to name the message in the path, so a lease that expired or
 * passed to another receiver can no longer be touched; a renewal checks the caller's consume grant again, so a
 * revoked receiver cannot keep a lease alive. Errors: unknown queue or message 404; invalid name or body 400; the
 * grants leave the caller out 403; stale or unknown lease token 409; message already acknowledged 410.
 */
@ApplicationScoped
@Path("queues")
@Produces(MediaType.APPLICATION_JSON)
public class LeaseResource {

    @Inject
    private Queues queues;

    @Inject
    private TransactionalQueue queue;

    @Context
    private SecurityContext security;

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/messages/{id}/renew")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject renew(@PathParam("queue") String name, @PathParam("id") String id, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        Duration extension = request.seconds("extendSeconds", 0.001, QueueSpec.MAX_LEASE.toSeconds())
                .orElseThrow(() -> ProblemException.invalid("'extendSeconds' is required"));
        String token = QueueParameters.token(
                queues, name, id, request.string("leaseToken").orElse(null));
        Lease lease = queue.renewLease(QueueName.of(name), token, extension, Caller.of(security));
        return Json.createObjectBuilder()
                .add("leaseToken", lease.token())
                .add("leaseExpiresAt", lease.expiresAt().toString())
                .build();
    }

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/messages/{id}/release")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see QueueResource
    public void release(@PathParam("queue") String name, @PathParam("id") String id, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        Duration delay = request.seconds("delaySeconds", 0, QueueParameters.MAX_DELAY_SECONDS)
                .orElse(null);
        String reason = request.string("reason").orElse(null);
        queue.release(
                QueueName.of(name),
                QueueParameters.token(
                        queues, name, id, request.string("leaseToken").orElse(null)),
                delay,
                reason);
    }
}
