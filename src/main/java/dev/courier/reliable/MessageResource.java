package dev.courier.reliable;

import dev.courier.access.Action;
import dev.courier.access.Caller;
import dev.courier.access.Grants;
import dev.courier.access.NotGrantedException;
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
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /api/messages}: the reliable message protocol over HTTP. Each request is its own transaction. Errors:
 * bad body or name 400, the topic's grants leave the caller out 403, unknown message, producer, topic or delivery 404, illegal transition 409 (the problem
 * body's {@code state} is the current one), payload too large 413, broker or database unreachable 503.
 */
@ApplicationScoped
@Path("messages")
@Produces(MediaType.APPLICATION_JSON)
public class MessageResource {

    @Inject
    private ReliableMessages messages;

    @Inject
    private Topics topics;

    @Inject
    private Prepares prepares;

    @Inject
    private Producers producers;

    @Context
    private SecurityContext security;

    /**
     * Prepare: {@code {"topic", "producer", "payload", "headers"?, "checkBackSeconds"?, "deliverAt"?}} → 201
     * {@code {"id", "state": "PENDING"}}.
     */
    @RolesAllowed(Roles.PRODUCER)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response prepare(JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        String topic = request.string("topic").orElseThrow(() -> ProblemException.invalid("'topic' is required"));
        String producer =
                request.string("producer").orElseThrow(() -> ProblemException.invalid("'producer' is required"));
        String payload = request.value("payload")
                .map(JsonValue::toString)
                .orElseThrow(() -> ProblemException.invalid("'payload' is required"));
        Caller caller = Caller.of(security);
        if (!caller.trusted()) {
            topics.grants(Names.check("topic", topic)).require(caller, Action.SEND, "topic " + topic);
            // An unknown producer passes: the prepare answers 404 for it.
            producers
                    .principals(Names.check("producer", producer))
                    .ifPresent(p -> p.require(caller, "producer " + producer));
        }
        String id = prepares.prepare(new Prepare(
                topic,
                producer,
                payload,
                request.stringMap("headers").orElse(null),
                request.seconds("checkBackSeconds", 0, 86_400).orElse(null),
                request.instant("deliverAt").orElse(null)));
        return Response.created(URI.create("messages/" + id))
                .entity(ReliableJson.outcome(new Outcome(id, MessageState.PENDING)))
                .build();
    }

    /** Confirm, with an optional final {@code {"payload", "headers"}} → 200 {@code {"id", "state"}}. */
    @RolesAllowed(Roles.PRODUCER)
    @POST
    @Path("{id}/confirm")
    public JsonObject confirm(@PathParam("id") String id, String body) {
        JsonRequest request = JsonRequest.parse(body);
        requireForProducer(id);
        return ReliableJson.outcome(
                messages.confirm(id, request.value("payload").map(JsonValue::toString), request.stringMap("headers")));
    }

    /** Cancel → 200 {@code {"id", "state": "CANCELLED"}}. */
    @RolesAllowed(Roles.PRODUCER)
    @DELETE
    @Path("{id}")
    public JsonObject cancel(@PathParam("id") String id) {
        requireForProducer(id);
        return ReliableJson.outcome(messages.cancel(id));
    }

    /** {@code {"subscriber"}} → 200 {@code {"id", "state"}} (COMPLETED once every subscriber has reported). */
    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{id}/consumed")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject consumed(@PathParam("id") String id, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        String subscriber =
                request.string("subscriber").orElseThrow(() -> ProblemException.invalid("'subscriber' is required"));
        requireForSubscriber(id, subscriber);
        return ReliableJson.outcome(messages.consumed(id, subscriber));
    }

    /** Reports or settles per request at most: a helper's batch of a few hundred fits many times over. */
    static final int MAX_BATCH = 1000;

    /**
     * Many reports in one call and one transaction: {@code {"reports": [{"messageId", "subscriber", "outcome":
     * "CONSUMED" | "FAILED", "reason"?}]}} → 200 {@code {"results": [...]}}, one per report in the same order, each
     * {@code {"messageId", "subscriber", "status": 200, "state"}} or {@code {..., "status": 4xx, "problem": {...}}}:
     * a refused report (bad item 400, not granted 403, unknown 404, conflict 409) changes nothing and does not stop
     * the others. 400 for a body that is no such object or holds more than {@value #MAX_BATCH} reports.
     */
    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("reports")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject reports(JsonValue body) {
        return answerEach(
                batch(body, "reports"),
                MessageResource::report,
                r -> requireForSubscriber(r.messageId(), r.subscriber()),
                messages::report,
                (r, problem) -> new Report.Result(r, null, problem),
                ReliableJson::result);
    }

    /**
     * Answers each item of a batch on its own: each is parsed and its grant checked first (a refusal is that item's
     * answer), then the accepted ones are applied together, in one transaction.
     */
    private static <T, R> JsonObject answerEach(
            List<JsonValue> items,
            java.util.function.Function<JsonValue, T> parse,
            java.util.function.Consumer<T> check,
            java.util.function.Function<List<T>, List<R>> apply,
            java.util.function.BiFunction<T, ProblemException, R> refused,
            java.util.function.BiFunction<R, JsonValue, JsonObject> json) {
        List<R> results = new java.util.ArrayList<>(java.util.Collections.nCopies(items.size(), (R) null));
        List<T> accepted = new java.util.ArrayList<>();
        List<Integer> positions = new java.util.ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            T item = null;
            try {
                item = parse.apply(items.get(i));
                check.accept(item);
                accepted.add(item);
                positions.add(i);
            } catch (ProblemException e) {
                results.set(i, refused.apply(item, e));
            }
        }
        List<R> applied = accepted.isEmpty() ? List.of() : apply.apply(accepted);
        for (int k = 0; k < applied.size(); k++) {
            results.set(positions.get(k), applied.get(k));
        }
        JsonArrayBuilder answers = Json.createArrayBuilder();
        for (int i = 0; i < items.size(); i++) {
            answers.add(json.apply(results.get(i), items.get(i)));
        }
        return Json.createObjectBuilder().add("results", answers).build();
    }

    /** The array {@code field} of a batch's body. @throws ProblemException 400 for none, or over the limit */
    private static List<JsonValue> batch(JsonValue body, String field) {
        JsonValue list = JsonRequest.of(body)
                .value(field)
                .orElseThrow(() -> ProblemException.invalid("'" + field + "' is required"));
        if (list.getValueType() != JsonValue.ValueType.ARRAY) {
            throw ProblemException.invalid("'" + field + "' must be an array");
        }
        List<JsonValue> items = list.asJsonArray();
        if (items.size() > MAX_BATCH) {
            throw ProblemException.invalid("at most " + MAX_BATCH + " " + field + " per request, not " + items.size());
        }
        return items;
    }

    /**
     * Many confirms and cancels in one call and one transaction: {@code {"settles": [{"messageId", "outcome":
     * "COMMITTED" | "ROLLED_BACK"}]}} → 200 {@code {"results": [...]}}, one per settle in the same order, each
     * {@code {"messageId", "status": 200, "state"}} or {@code {..., "status": 4xx, "problem": {...}}}: a refused
     * settle (bad item 400, not granted 403, unknown 404, conflict 409) changes nothing and does not stop the
     * others. 400 for a body that is no such object or holds more than {@value #MAX_BATCH} settles. The producer
     * helper sends its confirms this way, after its transactions committed.
     */
    @RolesAllowed(Roles.PRODUCER)
    @POST
    @Path("settles")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject settles(JsonValue body) {
        return answerEach(
                batch(body, "settles"),
                MessageResource::settle,
                settle -> requireForProducer(settle.messageId()),
                messages::settle,
                (settle, problem) -> new Settle.Result(settle, null, problem),
                ReliableJson::result);
    }

    private static Settle settle(JsonValue item) {
        if (item.getValueType() != JsonValue.ValueType.OBJECT) {
            throw ProblemException.invalid("each settle must be an object");
        }
        JsonRequest request = JsonRequest.of(item);
        String id = request.string("messageId").orElseThrow(() -> ProblemException.invalid("'messageId' is required"));
        String outcome = request.string("outcome").orElseThrow(() -> ProblemException.invalid("'outcome' is required"));
        return switch (outcome) {
            case "COMMITTED" -> new Settle(id, true);
            case "ROLLED_BACK" -> new Settle(id, false);
            default -> throw ProblemException.invalid("'outcome' must be COMMITTED or ROLLED_BACK");
        };
    }

    private static Report report(JsonValue item) {
        if (item.getValueType() != JsonValue.ValueType.OBJECT) {
            throw ProblemException.invalid("each report must be an object");
        }
        JsonRequest request = JsonRequest.of(item);
        String id = request.string("messageId").orElseThrow(() -> ProblemException.invalid("'messageId' is required"));
        String subscriber =
                request.string("subscriber").orElseThrow(() -> ProblemException.invalid("'subscriber' is required"));
        String outcome = request.string("outcome").orElseThrow(() -> ProblemException.invalid("'outcome' is required"));
        return switch (outcome) {
            case "CONSUMED" -> new Report(id, subscriber, true, null);
            case "FAILED" ->
                new Report(
                        id,
                        subscriber,
                        false,
                        request.string("reason")
                                .orElseThrow(
                                        () -> ProblemException.invalid("'reason' is required for a FAILED report")));
            default -> throw ProblemException.invalid("'outcome' must be CONSUMED or FAILED");
        };
    }

    /** {@code {"subscriber", "reason"}} → 200: redelivered to that subscriber after the backoff. */
    @RolesAllowed(Roles.CONSUMER)
    @POST
    @Path("{id}/failed")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject failed(@PathParam("id") String id, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        String subscriber =
                request.string("subscriber").orElseThrow(() -> ProblemException.invalid("'subscriber' is required"));
        String reason = request.string("reason").orElseThrow(() -> ProblemException.invalid("'reason' is required"));
        requireForSubscriber(id, subscriber);
        return ReliableJson.outcome(messages.failed(id, subscriber, reason));
    }

    @Audited("message.resume")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Path("{id}/resume")
    public JsonObject resume(@PathParam("id") String id) {
        return ReliableJson.outcome(messages.resume(id));
    }

    @Audited("message.delivery.replay")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Path("{id}/deliveries/{subscriber}/replay")
    public JsonObject replay(@PathParam("id") String id, @PathParam("subscriber") String subscriber) {
        return ReliableJson.outcome(messages.replay(id, subscriber));
    }

    /** The message with {@code deliveries} (the ledger) and {@code history}. */
    @RolesAllowed({Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER})
    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        requireReadable(id);
        Caller caller = Caller.of(security);
        ReliableMessage message = messages.get(id);
        return ReliableJson.message(message, true, seesCheckErrors(caller, producers.principals(message.producer())));
    }

    /**
     * Paged by {@code limit} (default 100) and a byte budget; {@code next} is the cursor to pass as {@code after}
     * for the next page, or null.
     */
    @RolesAllowed({Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER})
    @GET
    public JsonObject query(
            @QueryParam("state") String state,
            @QueryParam("topic") String topic,
            @QueryParam("producer") String producer,
            @QueryParam("subscriber") String subscriber,
            @QueryParam("deliveryState") String deliveryState,
            @QueryParam("limit") String limit,
            @QueryParam("after") String after) {
        ReliableMessagePage page = messages.query(new MessageQuery(
                state(MessageState.class, "state", state),
                topic,
                producer,
                subscriber,
                state(DeliveryState.class, "deliveryState", deliveryState),
                number("limit", limit, 100),
                after));
        JsonArrayBuilder list = Json.createArrayBuilder();
        Caller caller = Caller.of(security);
        // Messages of topics whose grants leave the caller out are left out of the page (which may come out
        // short: the cursor still goes past them).
        Map<String, Grants> grants = caller.trusted() ? Map.of() : topics.grants();
        Map<String, Principals> acting = new HashMap<>();
        if (!caller.trusted()) {
            producers.list().forEach(p -> acting.put(p.name(), p.principals()));
        }
        page.messages().stream()
                .filter(m -> grants.getOrDefault(m.topic(), Grants.NONE).allowRead(caller))
                .forEach(m -> list.add(ReliableJson.message(
                        m, false, seesCheckErrors(caller, Optional.ofNullable(acting.get(m.producer()))))));
        var json = Json.createObjectBuilder().add("messages", list);
        page.next().ifPresentOrElse(next -> json.add("next", next), () -> json.addNull("next"));
        return json.build();
    }

    /**
     * Passes when the caller may send on message {@code id}'s topic and act for its producer (confirm, cancel); an
     * unknown message passes (the operation answers 404 for it). @throws NotGrantedException 403
     */
    private void requireForProducer(String id) {
        Caller caller = Caller.of(security);
        if (caller.trusted()) {
            return;
        }
        topics.accessOf(id).ifPresent(access -> {
            access.grants().require(caller, Action.SEND, "topic " + access.topic());
            access.producerPrincipals().require(caller, "producer " + access.producer());
        });
    }

    /**
     * Passes when the caller may consume message {@code id}'s topic and report for {@code subscriber}; an unknown
     * message or subscriber passes (the operation answers 404 for it). @throws NotGrantedException 403
     */
    private void requireForSubscriber(String id, String subscriber) {
        Caller caller = Caller.of(security);
        if (caller.trusted()) {
            return;
        }
        topics.accessOf(id).ifPresent(access -> {
            access.grants().require(caller, Action.CONSUME, "topic " + access.topic());
            topics.subscriberPrincipals(access.topic(), subscriber)
                    .ifPresent(p -> p.require(caller, "subscriber " + subscriber + " of topic " + access.topic()));
        });
    }

    /**
     * Passes when the caller may read message {@code id} ({@link Grants#allowRead}); an unknown message passes (the
     * operation answers 404 for it). @throws NotGrantedException 403 naming a narrowed action
     */
    private void requireReadable(String id) {
        Caller caller = Caller.of(security);
        if (caller.trusted()) {
            return;
        }
        topics.accessOf(id).ifPresent(topic -> {
            if (!topic.grants().allowRead(caller)) {
                Action named = topic.grants().of(Action.CONSUME).isEmpty() ? Action.SEND : Action.CONSUME;
                throw new NotGrantedException(caller, named, "topic " + topic.topic());
            }
        });
    }

    private static <E extends Enum<E>> E state(Class<E> type, String field, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid(
                    "'" + field + "' must be one of " + java.util.Arrays.toString(type.getEnumConstants()));
        }
    }

    private static int number(String field, String value, int fallback) {
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw ProblemException.invalid("'" + field + "' must be a whole number");
        }
    }

    /** A check-back's error may name the producer's internals: admins and the producer's principals see it. */
    private static boolean seesCheckErrors(Caller caller, Optional<Principals> producer) {
        return caller.trusted() || producer.map(p -> p.allow(caller)).orElse(false);
    }
}
