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
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code /api/queues/{queue}/receive}: takes leases on a queue's deliverable messages, answered as JSON or, asked
 * for by name, as an event stream. Each message goes to one receiver at a time, under a lease whose token is the
 * only way to acknowledge, renew or release it; acknowledgements sent along are committed before any wait, and a
 * wait holds neither a request thread nor a transaction. Both forms stay in this one class because they share
 * their path and method and differ only in the media type they produce. Errors: unknown queue 404; invalid name
 * or body 400; the queue's grants leave the caller out 403; stale or unknown lease token to acknowledge 409;
 * message already acknowledged 410; too many waiting receivers 429.
 */
@ApplicationScoped
@Path("queues")
@Produces(MediaType.APPLICATION_JSON)
public class ReceiveResource {

    private static final Logger LOG = Logger.getLogger(ReceiveResource.class.getName());

    @Inject
    private TransactionalQueue queue;

    @Inject
    private WaitingReceive waiting;

    @Inject
    private Claims claims;

    @Context
    private SecurityContext security;

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
                .whenComplete((received, failure) -> {
                    if (failure != null) {
                        response.resume(failure); // resume(Throwable): mapped to its problem, not sent as an entity
                    } else {
                        response.resume(deliveries(received));
                    }
                });
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
}
