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
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * {@code /api/queues/{queue}/messages} and {@code /api/queues/{queue}/ack}: a queue's messages — send, look up,
 * acknowledge. A send, one message or a batch, is all or nothing in its own transaction, answered in the order
 * sent; an acknowledgement deletes exactly the messages whose current lease tokens it names, fenced by the token,
 * so a retried one fails instead of deleting twice. Errors: unknown queue or message 404; invalid name, body or
 * query parameter 400; the queue's grants leave the caller out 403; payload too large 413; stale or unknown lease
 * token 409; message already acknowledged 410.
 */
@ApplicationScoped
@Path("queues")
@Produces(MediaType.APPLICATION_JSON)
public class QueueMessageResource {

    @Inject
    private Queues queues;

    @Inject
    private TransactionalQueue queue;

    @Inject
    private QueueMessages messages;

    @Inject
    private QueueSettings settings;

    @Context
    private SecurityContext security;

    @RolesAllowed(Roles.PRODUCER)
    @POST
    @Path("{queue}/messages")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response send(@PathParam("queue") String name, JsonValue body) {
        QueueName queueName = QueueName.of(name);
        if (body instanceof JsonArray batch) {
            // A batch: all or nothing, one transaction; the answers in the order sent.
            if (batch.isEmpty() || batch.size() > settings.maxBatch) {
                throw ProblemException.invalid("a batch holds 1 to " + settings.maxBatch + " messages");
            }
            List<Outgoing> messages = new java.util.ArrayList<>(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                messages.add(outgoing(batch.get(i), "message " + i + ": "));
            }
            JsonArrayBuilder sent = Json.createArrayBuilder();
            queue.sendBatch(queueName, messages, Caller.of(security)).forEach(one -> sent.add(QueueJson.sent(one)));
            return Response.status(201)
                    .entity(Json.createObjectBuilder().add("messages", sent).build())
                    .build();
        }
        Outgoing message = outgoing(body, "");
        Sent sent = queue.sendBatch(queueName, List.of(message), Caller.of(security))
                .get(0);
        return Response.status(sent.duplicate() ? 200 : 201)
                .entity(QueueJson.sent(sent))
                .build();
    }

    /** One message of a send: {@code where} prefixes errors, to name the message of a batch at fault. */
    private static Outgoing outgoing(JsonValue body, String where) {
        try {
            JsonRequest request = JsonRequest.of(body);
            JsonValue payload = request.value("payload")
                    .orElseThrow(() -> ProblemException.invalid("'payload' is required (any JSON value but null)"));
            return new Outgoing(
                    Payload.json(payload),
                    new SendOptions(
                            request.instant("deliverAt").orElse(null),
                            request.seconds("delaySeconds", 0, QueueParameters.MAX_DELAY_SECONDS)
                                    .orElse(null),
                            request.string("key").orElse(null),
                            request.stringMap("headers").orElse(null)));
        } catch (ProblemException e) {
            throw where.isEmpty() ? e : new ProblemException(e.status(), e.title(), where + e.getMessage());
        }
    }

    @RolesAllowed({Roles.ADMIN, Roles.CONSUMER})
    @GET
    @Path("{queue}/messages")
    public JsonObject query(
            @PathParam("queue") String name,
            @QueryParam("state") String state,
            @QueryParam("deliverFrom") String deliverFrom,
            @QueryParam("deliverTo") String deliverTo,
            @QueryParam("minAttempts") String minAttempts,
            @QueryParam("key") String key,
            @QueryParam("after") String after,
            @QueryParam("limit") String limit) {
        MessageFilter filter = new MessageFilter(
                state(state),
                instant("deliverFrom", deliverFrom),
                instant("deliverTo", deliverTo),
                QueueParameters.integer("minAttempts", minAttempts, null),
                key);
        return QueueJson.page(messages.query(
                QueueName.of(name), filter, after, QueueParameters.integer("limit", limit, 100), Caller.of(security)));
    }

    @RolesAllowed({Roles.ADMIN, Roles.CONSUMER})
    @GET
    @Path("{queue}/messages/{id}")
    public JsonObject message(@PathParam("queue") String name, @PathParam("id") String id) {
        return QueueJson.message(messages.get(QueueName.of(name), id, Caller.of(security))
                .orElseThrow(() -> QueueParameters.notFound(name, id)));
    }

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/ack")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see QueueResource
    public void ackAll(@PathParam("queue") String name, JsonValue body) {
        List<String> tokens = JsonRequest.of(body)
                .strings("leaseTokens")
                .orElseThrow(() -> ProblemException.invalid("'leaseTokens' is required: the leases to acknowledge"));
        queue.ackAll(QueueName.of(name), tokens);
    }

    @RolesAllowed(Roles.CONSUMER)
    @DELETE
    @Path("{queue}/messages/{id}")
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see QueueResource
    public void ack(
            @PathParam("queue") String name,
            @PathParam("id") String id,
            @HeaderParam("Lease-Token") String header,
            @QueryParam("leaseToken") String query) {
        // The header keeps the token out of access logs; the query parameter stays for existing clients.
        queue.ack(QueueName.of(name), QueueParameters.token(queues, name, id, header != null ? header : query));
    }

    private static MessageState state(String state) {
        if (state == null) {
            return null;
        }
        try {
            return MessageState.valueOf(state.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("state must be one of SCHEDULED, READY, LEASED, DEAD");
        }
    }

    // Query parameters are parsed here, not by JAX-RS, which would answer a malformed one with 404.
    private static Instant instant(String name, String value) {
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw ProblemException.invalid("'" + name + "' must be an ISO-8601 instant");
        }
    }
}
