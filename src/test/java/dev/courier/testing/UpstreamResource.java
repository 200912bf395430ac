package dev.courier.testing;

import dev.courier.client.CallSignature;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DefaultValue;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Deployed only by the tests: the upstream and downstream applications over HTTP. Each producer name has a
 * check-back behaviour the test sets ({@code BARRIER} answers from the barrier table through
 * {@link dev.courier.client.BarrierCheckBack}); every check-back call and notification is recorded.
 */
@Path("test/apps")
@Produces(MediaType.APPLICATION_JSON)
public class UpstreamResource {

    /**
     * Check-back behaviour per producer: BARRIER, COMMITTED, COMMITTED_WITH_PAYLOAD, ROLLED_BACK, PENDING, ERROR,
     * HANG; UNSIGNED (COMMITTED with no signature) and FORGED (ROLLED_BACK signed with another secret), as someone
     * on the path would answer. Answers are signed with the producer's secret when the test gave it one.
     */
    static final Map<String, String> MODES = new ConcurrentHashMap<>();
    /** Per producer: "millis id answer" of each check-back call, when it was answered. */
    static final Map<String, List<String>> CALLS = new ConcurrentHashMap<>();

    static final Map<String, List<String>> NOTIFICATIONS = new ConcurrentHashMap<>();
    static final Map<String, Integer> IN_PROGRESS = new ConcurrentHashMap<>();
    /** Per producer: the signing secret Courier gave it; calls must carry its signature ({@link CallSignature}). */
    static final Map<String, String> SECRETS = new ConcurrentHashMap<>();

    @Inject
    private Apps apps;

    @Inject
    private dev.courier.reliable.Producers producers;

    @jakarta.annotation.Resource
    private jakarta.transaction.UserTransaction userTransaction;

    @Inject
    private Orders orders;

    @Inject
    private Downstream downstream;

    @PUT
    @Path("{producer}/mode/{mode}")
    public void mode(@PathParam("producer") String producer, @PathParam("mode") String mode) {
        MODES.put(producer, mode);
    }

    /** The producer's signing secret, from its registration (the body, as text). */
    @PUT
    @Path("{producer}/secret")
    @jakarta.ws.rs.Consumes(MediaType.WILDCARD)
    public void secret(@PathParam("producer") String producer, String secret) {
        SECRETS.put(producer, secret.trim());
    }

    /** Whether Courier signed this call with the producer's secret; a producer without one takes any call. */
    private static boolean signed(String producer, String method, UriInfo uri, HttpHeaders headers, String body) {
        String secret = SECRETS.get(producer);
        if (secret == null) {
            return true;
        }
        java.net.URI request = uri.getRequestUri();
        String target = request.getRawPath() + (request.getRawQuery() == null ? "" : "?" + request.getRawQuery());
        return CallSignature.verify(
                secret,
                headers.getHeaderString(CallSignature.TIMESTAMP),
                headers.getHeaderString(CallSignature.SIGNATURE),
                method,
                target,
                body,
                java.time.Instant.now(),
                CallSignature.DEFAULT_TOLERANCE);
    }

    @jakarta.annotation.Resource
    private jakarta.enterprise.concurrent.ManagedScheduledExecutorService scheduler;

    @GET
    @Path("{producer}/check-back")
    public void checkBack(
            @PathParam("producer") String producer,
            @QueryParam("id") String id,
            @Context UriInfo uri,
            @Context HttpHeaders headers,
            @jakarta.ws.rs.container.Suspended jakarta.ws.rs.container.AsyncResponse async)
            throws Exception {
        if (!signed(producer, "GET", uri, headers, "")) {
            CALLS.computeIfAbsent(producer, p -> new CopyOnWriteArrayList<>())
                    .add(System.currentTimeMillis() + " " + id + " 401");
            async.resume(Response.status(401)
                    .entity("{\"error\":\"not signed by Courier\"}")
                    .build());
            return;
        }
        String mode = MODES.getOrDefault(producer, "BARRIER");
        if (mode.equals("HANG")) { // answers too late, holding no server thread meanwhile
            scheduler.schedule(
                    () -> async.resume(record(
                            producer,
                            id,
                            "{\"status\":\"PENDING\"}",
                            headers.getHeaderString(CallSignature.SIGNATURE),
                            answerSecret(producer, mode))),
                    5,
                    TimeUnit.SECONDS);
            return;
        }
        IN_PROGRESS.merge(producer, 1, Integer::sum);
        try {
            String answer = switch (mode) {
                case "BARRIER" -> apps.checkBack().answer(id).json();
                case "COMMITTED_WITH_PAYLOAD" ->
                    "{\"status\":\"COMMITTED\",\"payload\":{\"final\":true,\"version\":7}}";
                case "ERROR" -> null;
                case "UNSIGNED" -> "{\"status\":\"COMMITTED\"}";
                case "FORGED" -> "{\"status\":\"ROLLED_BACK\"}";
                // What an internal page would answer: its text must not become a message's lastError.
                case "PAGE" -> "<html>instance-secret-token</html>";
                default -> "{\"status\":\"" + mode + "\"}";
            };
            async.resume(record(
                    producer,
                    id,
                    answer,
                    headers.getHeaderString(CallSignature.SIGNATURE),
                    answerSecret(producer, mode)));
        } finally {
            IN_PROGRESS.merge(producer, -1, Integer::sum);
        }
    }

    /**
     * The secret this producer signs its answers with: the one the test gave it, else its registration's (this test
     * application forgets what it was given when a crash test kills the server; the producer's secret is in Courier's
     * database, as a real producer keeps its own); a stranger's for FORGED, none for UNSIGNED.
     */
    private String answerSecret(String producer, String mode) {
        return switch (mode) {
            case "FORGED" -> CallSignature.newSecret();
            case "UNSIGNED" -> null;
            default ->
                SECRETS.containsKey(producer)
                        ? SECRETS.get(producer)
                        : producers.signingSecret(producer).orElse(null);
        };
    }

    private static Response record(String producer, String id, String answer, String callSignature, String secret) {
        CALLS.computeIfAbsent(producer, p -> new CopyOnWriteArrayList<>())
                .add(System.currentTimeMillis() + " " + id + " " + (answer == null ? "500" : answer));
        if (answer == null) {
            return Response.serverError().entity("{\"error\":\"boom\"}").build();
        }
        Response.ResponseBuilder ok = Response.ok(answer);
        if (secret != null) {
            CallSignature.answerHeaders(secret, callSignature, answer).forEach(ok::header);
        }
        return ok.build();
    }

    @POST
    @Path("{producer}/notifications")
    public Response notification(
            @PathParam("producer") String producer, String body, @Context UriInfo uri, @Context HttpHeaders headers) {
        if (!signed(producer, "POST", uri, headers, body)) {
            return Response.status(401).build();
        }
        NOTIFICATIONS
                .computeIfAbsent(producer, p -> new CopyOnWriteArrayList<>())
                .add(body);
        return Response.noContent().build();
    }

    /** Check-back calls answered so far, notifications received, check-backs in progress. */
    @GET
    @Path("{producer}")
    public JsonObject producer(@PathParam("producer") String producer) {
        JsonArrayBuilder calls = Json.createArrayBuilder();
        CALLS.getOrDefault(producer, List.of()).forEach(calls::add);
        JsonArrayBuilder notes = Json.createArrayBuilder();
        NOTIFICATIONS.getOrDefault(producer, List.of()).forEach(notes::add);
        return Json.createObjectBuilder()
                .add("calls", calls)
                .add("notifications", notes)
                .add("inProgress", IN_PROGRESS.getOrDefault(producer, 0))
                .build();
    }

    /** The helpers' transport from now on: {@code local} (in process) or {@code http}. */
    @PUT
    @Path("transport/{transport}")
    public void transport(@PathParam("transport") String transport) {
        apps.inProcess("local".equals(transport));
    }

    /**
     * The in-process API's answers to what it must refuse or keep, run in the server: {"confirmUnknown": status,
     * "reportUnknown": the batch's refusal, "preparedInRolledBack": the id of a message prepared inside a
     * transaction that then rolled back, "badTopic": status}.
     */
    @POST
    @Path("local/answers")
    public JsonObject localAnswers(@QueryParam("topic") String topic, @QueryParam("producer") String producer)
            throws Exception {
        dev.courier.reliable.LocalCourierApi local = apps.local();
        var answers = Json.createObjectBuilder();
        try {
            local.confirm("00000000-0000-0000-0000-000000000000");
            answers.add("confirmUnknown", 200);
        } catch (dev.courier.client.CourierException e) {
            answers.add("confirmUnknown", e.status());
        }
        List<String> refused = local.report(
                List.of(new dev.courier.client.CourierApi.Report("00000000-0000-0000-0000-000000000000", "s", null)));
        answers.add("reportUnknown", String.valueOf(refused.get(0)));
        try {
            local.prepare("bad topic!", producer, "{}", Map.of(), null);
            answers.add("badTopic", 200);
        } catch (dev.courier.client.CourierException e) {
            answers.add("badTopic", e.status());
        }
        userTransaction.begin();
        try {
            answers.add("preparedInRolledBack", local.prepare(topic, producer, "{\"n\": 1}", Map.of(), null));
        } finally {
            userTransaction.rollback();
        }
        return answers.build();
    }

    /** The applications' purge of their barrier and inbox rows ({@code ClientTables.purge}): {"purged"}. */
    @POST
    @Path("purge")
    public JsonObject purge(@QueryParam("before") String before) throws java.sql.SQLException {
        return Json.createObjectBuilder()
                .add(
                        "purged",
                        dev.courier.client.ClientTables.purge(apps.dataSource(), java.time.Instant.parse(before)))
                .build();
    }

    /** Places an order through the producer helper; {@code hold} keeps its transaction open until released. */
    @POST
    @Path("{producer}/orders")
    public JsonObject order(
            @PathParam("producer") String producer,
            @QueryParam("topic") String topic,
            @QueryParam("fail") boolean fail,
            @QueryParam("hold") @DefaultValue("NONE") Orders.Hold hold,
            @QueryParam("checkBackSeconds") @DefaultValue("10") double checkBackSeconds,
            @QueryParam("async") boolean async) {
        try {
            String[] placed = orders.place(producer, topic, fail, hold, checkBackSeconds, async)
                    .split(" ");
            return Json.createObjectBuilder()
                    .add("order", placed[0])
                    .add("messageId", placed[1])
                    .build();
        } catch (RuntimeException e) {
            return Json.createObjectBuilder().add("error", String.valueOf(e)).build();
        }
    }

    /** Arms a hold for the next held order; answers when released. */
    @POST
    @Path("holds")
    public void arm() {
        Orders.release = new CountDownLatch(1);
        Orders.reached = new CountDownLatch(1);
        Orders.heldMessageId = null;
    }

    /** Waits until the held order reached its hold point, answers its message id. */
    @GET
    @Path("holds/reached")
    public JsonObject reached() throws InterruptedException {
        if (!Orders.reached.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no order reached its hold");
        }
        return Json.createObjectBuilder().add("messageId", Orders.heldMessageId).build();
    }

    @POST
    @Path("holds/release")
    public void release() {
        Orders.release.countDown();
    }

    @GET
    @Path("orders/count")
    public JsonObject orders(@QueryParam("messageId") String messageId) {
        return Json.createObjectBuilder().add("count", orders.count(messageId)).build();
    }

    /** Confirms and cancels wait at the door until released (or 30 s). */
    @POST
    @Path("settles/hold")
    public void holdSettles() {
        apps.courier().holdSettles();
    }

    @POST
    @Path("settles/release")
    public void releaseSettles() {
        apps.courier().releaseSettles();
    }

    /** How the helpers' reports went out in batches: {"batches", "reports"} since the start. */
    @GET
    @Path("reports")
    public JsonObject reports() {
        return Json.createObjectBuilder()
                .add("batches", apps.courier().batches())
                .add("reports", apps.courier().batchedReports())
                .add("settleBatches", apps.courier().settleBatches())
                .add("settles", apps.courier().batchedSettles())
                .build();
    }

    @POST
    @Path("lose")
    public void lose(
            @QueryParam("settles") int settles,
            @QueryParam("reports") int reports,
            @QueryParam("prepareAnswers") int prepareAnswers) {
        apps.courier().loseSettles(settles);
        apps.courier().loseReports(reports);
        apps.courier().losePrepareAnswers(prepareAnswers);
    }

    /** One message consumed by the downstream worker of {@code subscriber}: 200 {"id","processed"}, 204 none. */
    @POST
    @Path("downstream/{topic}/{subscriber}")
    public Response consume(
            @PathParam("topic") String topic,
            @PathParam("subscriber") String subscriber,
            @QueryParam("fail") boolean fail,
            @QueryParam("batched") boolean batched) {
        try {
            String result = downstream.consumeOne(topic, subscriber, fail, batched);
            if (result == null) {
                return Response.noContent().build();
            }
            String[] parts = result.split(" ");
            return Response.ok(Json.createObjectBuilder()
                            .add("id", parts[0])
                            .add("processed", parts[1].equals("processed"))
                            .build())
                    .build();
        } catch (Exception e) {
            return Response.ok(Json.createObjectBuilder()
                            .add("error", String.valueOf(e))
                            .build())
                    .build();
        }
    }

    @GET
    @Path("effects")
    public JsonObject effects(@QueryParam("messageId") String messageId, @QueryParam("subscriber") String subscriber) {
        return Json.createObjectBuilder()
                .add("count", orders.effects(messageId, subscriber))
                .build();
    }

    /** Makes the local-mode MDB hold after committing {@code messageId}, before its acknowledgement. */
    @POST
    @Path("mdb/hold")
    public void hold(@QueryParam("messageId") String messageId) {
        InboxListeners.holdAfterCommit(messageId);
    }

    /**
     * How often the test MDBs handled message {@code messageId} (their effect ran, failed or not), and how many of
     * its copies the local mode's inbox skipped: {"count", "duplicates"}.
     */
    @GET
    @Path("mdb/handled")
    public JsonObject handled(@QueryParam("messageId") String messageId) {
        return Json.createObjectBuilder()
                .add("count", InboxListeners.handled(messageId))
                .add("duplicates", InboxListeners.duplicates(messageId))
                .build();
    }

    @Inject
    private HelperBench bench;

    /** The helpers' benchmark (ReliableBench): {"perSecond", "p50Millis", "p99Millis", "messages"}. */
    @POST
    @Path("bench/helpers")
    public JsonObject benchHelpers(
            @QueryParam("producer") String producer,
            @QueryParam("topic") String topic,
            @QueryParam("producers") int producers,
            @QueryParam("messages") int messages)
            throws Exception {
        return bench.run(producer, topic, producers, messages);
    }
}
