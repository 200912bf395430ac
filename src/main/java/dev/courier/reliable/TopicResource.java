package dev.courier.reliable;

import dev.courier.access.Grants;
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
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** {@code /api/topics}: topics, their subscribers and their grants. */
@ApplicationScoped
@Path("topics")
@Produces(MediaType.APPLICATION_JSON)
public class TopicResource {

    @Inject
    private Topics topics;

    @Inject
    private SubscriberAccounts accounts;

    /**
     * {@code {"name", "retryLimit"?, "deliveryTimeoutSeconds"?, "principals"?}} → 201 created, 200 updated (the
     * principals stay when none are given).
     */
    @Audited("topic.subscribe")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Path("{topic}/subscribers")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response subscribe(@PathParam("topic") String topic, JsonValue body) {
        JsonRequest request = JsonRequest.of(body);
        String name = request.string("name").orElseThrow(() -> ProblemException.invalid("'name' is required"));
        // Checked here as well as in Topics: subscribe runs outside a transaction, where a problem thrown in the
        // bean marks its local transaction containment and Liberty logs that at ERROR.
        Names.check("topic", topic);
        Names.check("name", name);
        boolean created = topics.subscribe(
                topic,
                name,
                request.integer("retryLimit", 0, 1000).orElse(null),
                request.seconds("deliveryTimeoutSeconds", 0.001, 86_400).orElse(null),
                request.value("principals").map(Principals::fromJson).orElse(null));
        return Response.status(created ? 201 : 200)
                .entity(ReliableJson.topic(topic, topics.subscribers(topic), topics.grants(topic)))
                .build();
    }

    /**
     * The subscriber's own broker account, with a new password shown this once (the previous one stops working):
     * {@code {"user", "password", "queue"}}; 404 for no such subscriber.
     */
    @Audited("subscriber.broker-account")
    @RolesAllowed(Roles.ADMIN)
    @POST
    @Path("{topic}/subscribers/{name}/broker-account")
    public JsonObject brokerAccount(@PathParam("topic") String topic, @PathParam("name") String name) {
        Names.check("topic", topic);
        Names.check("name", name);
        if (topics.subscriberPrincipals(topic, name).isEmpty()) {
            throw new UnknownResourceException("subscriber", topic + "/" + name);
        }
        SubscriberAccounts.Account account = accounts.issue(topic, name);
        return Json.createObjectBuilder()
                .add("user", account.user())
                .add("password", account.password())
                .add("queue", account.queue())
                .build();
    }

    /**
     * {@code {"grants": {"send": [...], "consume": [...]}}} → 200 with the topic: who besides the role may send to
     * it and consume from it ({@code {}} lifts them). A topic may get grants before its first subscriber.
     */
    @Audited("topic.define")
    @RolesAllowed(Roles.ADMIN)
    @PUT
    @Path("{topic}")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject define(@PathParam("topic") String topic, JsonValue body) {
        Grants grants = JsonRequest.of(body)
                .value("grants")
                .map(Grants::fromJson)
                .orElseThrow(
                        () -> ProblemException.invalid("'grants' is required: {\"send\": [...], \"consume\": [...]}"));
        topics.grant(topic, grants);
        return ReliableJson.topic(topic, topics.subscribersOf(topic), grants);
    }

    @RolesAllowed({Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER})
    @GET
    public JsonObject list() {
        Map<String, List<Subscriber>> byTopic = topics.all().stream()
                .collect(Collectors.groupingBy(Subscriber::topic, LinkedHashMap::new, Collectors.toList()));
        Map<String, Grants> grants = topics.grants();
        JsonArrayBuilder all = Json.createArrayBuilder();
        byTopic.forEach((topic, subscribers) ->
                all.add(ReliableJson.topic(topic, subscribers, grants.getOrDefault(topic, Grants.NONE))));
        return Json.createObjectBuilder().add("topics", all).build();
    }

    @RolesAllowed({Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER})
    @GET
    @Path("{topic}")
    public JsonObject get(@PathParam("topic") String topic) {
        return ReliableJson.topic(topic, topics.subscribers(topic), topics.grants(topic));
    }
}
