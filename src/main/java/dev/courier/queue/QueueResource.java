package dev.courier.queue;

import dev.courier.access.Caller;
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
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code /api/queues}: the transactional queue over HTTP, for callers outside the server. Each request is its
 * own transaction. Errors: unknown queue 404; invalid name or body 400; the queue's grants leave the caller
 * out 403 (send; receive and message reads); payload too large 413; stale or unknown
 * lease token 409; message already acknowledged 410; too many queues 409; too many waiting receivers 429.
 */
@ApplicationScoped
@Path("queues")
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {

    /*
     * The operations that answer 204 (nothing on success, a problem on failure) also produce
     * application/problem+json, so a client that accepts only that (what generated clients send for such an
     * operation) gets through instead of a 406. Two entries: RESTEasy does not split one comma-separated string.
     */

    private static final Logger LOG = Logger.getLogger(QueueResource.class.getName());
    private static final double MAX_SECONDS = 100L * 365 * 24 * 3600; // delays have no practical upper limit

    @Inject
    private Queues queues;

    @Inject
    private TransactionalQueue queue;

    @Inject
    private QueueMessages messages;

    @Inject
    private DeadLetters dead;

    @Inject
    private Waiters waiters;

    @Inject
    private WaitingReceive waiting;

    @Inject
    private Claims claims;

    @Inject
    private QueueSettings settings;

    @Context
    private SecurityContext security;

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
        boolean created = queues.define(spec, !request.has("grants"));
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
                            request.seconds("delaySeconds", 0, MAX_SECONDS).orElse(null),
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
                integer("minAttempts", minAttempts, null),
                key);
        return QueueJson.page(
                messages.query(QueueName.of(name), filter, after, integer("limit", limit, 100), Caller.of(security)));
    }

    @RolesAllowed({Roles.ADMIN, Roles.CONSUMER})
    @GET
    @Path("{queue}/messages/{id}")
    public JsonObject message(@PathParam("queue") String name, @PathParam("id") String id) {
        return QueueJson.message(
                messages.get(QueueName.of(name), id, Caller.of(security)).orElseThrow(() -> notFound(name, id)));
    }

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/receive")
    @Consumes(MediaType.APPLICATION_JSON)
    public void receive(@PathParam("queue") String name, JsonValue body, @Suspended AsyncResponse response) {
        ReceiveRequest receive = ReceiveRequest.of(name, body);
        if (receive.waitFor().isZero()) {
            // A worker's loop in one request and one transaction: ack what it finished, take the next batch.
            Caller caller = Caller.of(security);
            response.resume(deliveries(
                    receive.ack().isEmpty()
                            ? queue.receive(receive.queue(), receive.max(), receive.lease(), caller)
                            : queue.ackAndReceive(
                                    receive.queue(), receive.ack(), receive.max(), receive.lease(), caller)));
            return;
        }
        receive.ackFirst(queue);
        // A long poll holds no request thread: the answer is sent when the waiting receive completes.
        queue.receiveAsync(receive.queue(), receive.max(), receive.lease(), receive.waitFor(), Caller.of(security))
                .whenComplete((received, failure) -> response.resume(failure != null ? failure : deliveries(received)));
    }

    /**
     * The same receive as an event stream ({@code Accept: text/event-stream}), for receivers that may give up
     * before their wait ends. While it waits, the stream writes a heartbeat comment before every claim; once a
     * heartbeat fails the receiver has gone, and the wait ends without claiming. Leases taken in the moment the
     * receiver went away are given back, their attempt not counted, when writing them fails. Events: one
     * {@code messages} ({@code {"messages": [...]}}, possibly empty) or one {@code problem} (a problem+json body
     * for a failure after the first claim); bad input still answers with a plain 4xx before the stream starts.
     */
    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/receive")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS + ";qs=0.5") // asked for by name: a caller accepting anything gets JSON
    public void receiveEvents(
            @PathParam("queue") String name, JsonValue body, @Context SseEventSink sink, @Context Sse sse) {
        ReceiveRequest receive = ReceiveRequest.of(name, body);
        receive.ackFirst(queue);
        EventStream stream = new EventStream(sink, sse);
        waiting.start(
                        receive.queue(),
                        receive.max(),
                        receive.lease(),
                        receive.waitFor(),
                        Caller.of(security),
                        stream::heartbeat)
                .whenComplete((received, failure) -> {
                    if (failure != null) {
                        stream.last(
                                "problem",
                                new ProblemMapper()
                                        .toResponse(failure)
                                        .getEntity()
                                        .toString());
                    } else if (!stream.last("messages", deliveries(received).toString()) && !received.isEmpty()) {
                        giveBack(receive.queue(), received);
                    }
                });
    }

    /** Gives back what a gone receiver was given; this runs on the stage's thread, where nobody sees a failure. */
    private void giveBack(QueueName name, List<Delivery> received) {
        try {
            claims.giveBack(name, received);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    e,
                    () -> received.size() + " lease(s) on " + name
                            + " for a receiver that left could not be given back; they are delivered again when they expire");
        }
    }

    /** The fields of a receive request, checked. */
    private record ReceiveRequest(QueueName queue, int max, Duration lease, Duration waitFor, List<String> ack) {

        static ReceiveRequest of(String name, JsonValue body) {
            QueueName queue = QueueName.of(name);
            JsonRequest request = JsonRequest.of(body);
            int max = request.integer("max", 1, Integer.MAX_VALUE)
                    .orElseThrow(() -> ProblemException.invalid("'max' is required"));
            Duration lease = request.seconds("leaseSeconds", 0.001, QueueSpec.MAX_LEASE.toSeconds())
                    .orElse(null);
            Duration wait = request.seconds("waitSeconds", 0, 3600).orElse(Duration.ZERO);
            return new ReceiveRequest(
                    queue, max, lease, wait, request.strings("ack").orElse(List.of()));
        }

        /** Acknowledges before a wait, committed: the wait holds no transaction. */
        void ackFirst(TransactionalQueue queue) {
            if (!ack.isEmpty()) {
                queue.ackAll(this.queue, ack);
            }
        }
    }

    private static JsonObject deliveries(List<Delivery> deliveries) {
        JsonArrayBuilder received = Json.createArrayBuilder();
        deliveries.forEach(d -> received.add(QueueJson.delivery(d)));
        return Json.createObjectBuilder().add("messages", received).build();
    }

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/messages/{id}/renew")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject renew(@PathParam("queue") String name, @PathParam("id") String id, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        Duration extension = request.seconds("extendSeconds", 0.001, QueueSpec.MAX_LEASE.toSeconds())
                .orElseThrow(() -> ProblemException.invalid("'extendSeconds' is required"));
        String token = token(name, id, request.string("leaseToken").orElse(null));
        Lease lease = queue.renewLease(QueueName.of(name), token, extension);
        return Json.createObjectBuilder()
                .add("leaseToken", lease.token())
                .add("leaseExpiresAt", lease.expiresAt().toString())
                .build();
    }

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/messages/{id}/release")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see above
    public void release(@PathParam("queue") String name, @PathParam("id") String id, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        Duration delay = request.seconds("delaySeconds", 0, MAX_SECONDS).orElse(null);
        String reason = request.string("reason").orElse(null);
        queue.release(
                QueueName.of(name), token(name, id, request.string("leaseToken").orElse(null)), delay, reason);
    }

    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{queue}/ack")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see above
    public void ackAll(@PathParam("queue") String name, JsonValue body) {
        List<String> tokens = JsonRequest.of(body)
                .strings("leaseTokens")
                .orElseThrow(() -> ProblemException.invalid("'leaseTokens' is required: the leases to acknowledge"));
        queue.ackAll(QueueName.of(name), tokens);
    }

    @RolesAllowed(Roles.CONSUMER)
    @DELETE
    @Path("{queue}/messages/{id}")
    @Produces({MediaType.APPLICATION_JSON, ProblemMapper.PROBLEM_JSON}) // answers 204: see above
    public void ack(
            @PathParam("queue") String name,
            @PathParam("id") String id,
            @HeaderParam("Lease-Token") String header,
            @QueryParam("leaseToken") String query) {
        // The header keeps the token out of access logs; the query parameter stays for existing clients.
        queue.ack(QueueName.of(name), token(name, id, header != null ? header : query));
    }

    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("{queue}/dead")
    public JsonObject dead(
            @PathParam("queue") String name, @QueryParam("after") String after, @QueryParam("limit") String limit) {
        return QueueJson.page(dead.list(QueueName.of(name), after, integer("limit", limit, 100)));
    }

    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("{queue}/dead/{id}")
    public JsonObject deadMessage(@PathParam("queue") String name, @PathParam("id") String id) {
        return QueueJson.message(dead.get(QueueName.of(name), id).orElseThrow(() -> notFound(name, id)));
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

    /**
     * The request's lease token, checked to belong to the message in the path; the operation checks that the
     * message belongs to the queue in the path: a token is no licence to act on another queue's message through
     * this queue's URL.
     */
    private String token(String queueName, String id, String token) {
        if (token == null || token.isBlank()) {
            queues.require(QueueName.of(queueName)); // an unknown queue says so first
            throw ProblemException.invalid("'leaseToken' is required");
        }
        if (!LeaseToken.messageId(token).equals(id)) {
            queues.require(QueueName.of(queueName));
            throw StaleLeaseException.unknown();
        }
        return token;
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

    // Query parameters are parsed here, not by JAX-RS, which would answer a malformed number with 404.
    private static Integer integer(String name, String value, Integer absent) {
        try {
            return value == null ? absent : Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw ProblemException.invalid("'" + name + "' must be a whole number");
        }
    }

    private static Instant instant(String name, String value) {
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw ProblemException.invalid("'" + name + "' must be an ISO-8601 instant");
        }
    }

    private static ProblemException notFound(String queue, String id) {
        return new ProblemException(404, "Message not found", "queue " + queue + " has no message " + id);
    }
}
