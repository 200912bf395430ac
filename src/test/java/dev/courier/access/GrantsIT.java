package dev.courier.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Grants on a queue or a topic narrow who, among the holders of the role, may send and consume there. Users of
 * the generated test registry: {@code producer} and {@code consumer} hold one role each, {@code partner} holds
 * both and is in the group {@code partners}, {@code admin} holds every role.
 */
@ExtendWith(ArquillianExtension.class)
class GrantsIT {

    private final Http admin = Http.server();
    private final Http producer = admin.as("producer");
    private final Http consumer = admin.as("consumer");
    private final Http partner = admin.as("partner");
    private final String queue =
            "grants_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void drop() {
        admin.delete("api/queues/" + queue);
    }

    @Test
    void should_let_only_granted_users_and_groups_send_to_and_consume_from_a_queue() {
        Http.Response defined = admin.put(
                "api/queues/" + queue,
                "{\"grants\": {\"send\": [\"user:producer\"], \"consume\": [\"group:partners\"]}}");
        assertEquals(201, defined.status(), defined::toString);
        assertEquals(
                "{\"send\":[\"user:producer\"],\"consume\":[\"group:partners\"]}",
                defined.json().getJsonObject("grants").toString());

        assertEquals(201, send(producer).status());
        notGranted(send(partner), "'partner' is not granted send on queue " + queue);
        notGranted(send(partner, "[{\"payload\": 1}]"), null);
        assertEquals(201, send(admin).status(), "an admin is never narrowed");

        notGranted(receive(consumer, 0), "'consumer' is not granted consume on queue " + queue);
        notGranted(receive(consumer, 1), null); // a long poll is refused before it waits
        notGranted(consumer.get("api/queues/" + queue + "/messages"), null);
        JsonObject received =
                receive(partner, 0).json().getJsonArray("messages").getJsonObject(0);
        notGranted(consumer.get("api/queues/" + queue + "/messages/" + received.getString("id")), null);
        assertEquals(
                200,
                partner.get("api/queues/" + queue + "/messages/" + received.getString("id"))
                        .status(),
                "a member of a granted group reads the message");
        assertEquals(
                204,
                partner.delete("api/queues/" + queue + "/messages/" + received.getString("id") + "?leaseToken="
                                + received.getString("leaseToken"))
                        .status());
        assertEquals(200, admin.get("api/queues/" + queue + "/messages").status());
    }

    @Test
    void should_keep_grants_when_a_definition_leaves_them_out_and_lift_them_when_it_says_so() {
        admin.put("api/queues/" + queue, "{\"grants\": {\"consume\": [\"user:partner\"]}}");
        Http.Response redefined = admin.put("api/queues/" + queue, "{\"leaseSeconds\": 5}");
        assertEquals(200, redefined.status(), redefined::toString);
        assertEquals(5, redefined.json().getInt("leaseSeconds"));
        assertEquals(
                "{\"consume\":[\"user:partner\"]}",
                redefined.json().getJsonObject("grants").toString(),
                "a definition without grants keeps them");
        notGranted(receive(consumer, 0), null);

        Http.Response lifted = admin.put("api/queues/" + queue, "{\"grants\": {}}");
        assertEquals("{}", lifted.json().getJsonObject("grants").toString());
        assertEquals(200, receive(consumer, 0).status(), "without grants the role decides");
        assertEquals(
                "{}",
                admin.get("api/queues").json().getJsonArray("queues").stream()
                        .map(JsonObject.class::cast)
                        .filter(q -> q.getString("name").equals(queue))
                        .findFirst()
                        .orElseThrow()
                        .getJsonObject("grants")
                        .toString());
    }

    @Test
    void should_apply_a_changed_grant_to_the_very_next_request() {
        admin.put("api/queues/" + queue, "{\"grants\": {\"send\": [\"user:producer\"]}}");
        assertEquals(201, send(producer).status()); // the server now holds a copy of the definition
        notGranted(send(partner), null);

        assertEquals(
                200,
                admin.put("api/queues/" + queue, "{\"grants\": {\"send\": [\"user:partner\"]}}")
                        .status());
        notGranted(send(producer), "'producer' is not granted send on queue " + queue);
        assertEquals(201, send(partner).status());
    }

    @Test
    void should_refuse_to_renew_a_lease_once_the_receivers_grant_is_revoked() {
        admin.put("api/queues/" + queue, "{\"grants\": {\"consume\": [\"user:partner\"]}}");
        assertEquals(201, send(producer).status());
        JsonObject received =
                receive(partner, 0).json().getJsonArray("messages").getJsonObject(0);
        String renew = "api/queues/" + queue + "/messages/" + received.getString("id") + "/renew";
        String body = "{\"leaseToken\": \"" + received.getString("leaseToken") + "\", \"extendSeconds\": 30}";
        assertEquals(200, partner.post(renew, body).status(), "granted: the renewal goes through");

        assertEquals(
                200,
                admin.put("api/queues/" + queue, "{\"grants\": {\"consume\": [\"user:consumer\"]}}")
                        .status());
        notGranted(partner.post(renew, body), "'partner' is not granted consume on queue " + queue);
    }

    /**
     * A waiting receive checks the receiver's grant at every claim (issue 50, item 7): a grant revoked while it
     * waits ends the wait with 403 at the next claim, and the message that woke it stays for the granted receiver.
     * Before, only the first claim checked, and the receiver kept receiving for the rest of its wait.
     */
    @Test
    void should_end_a_waiting_receive_whose_grant_is_revoked_while_it_waits() throws Exception {
        admin.put("api/queues/" + queue, "{\"grants\": {\"consume\": [\"user:partner\"]}}");
        CompletableFuture<Http.Response> waiting = CompletableFuture.supplyAsync(() -> receive(partner, 20));
        Eventually.until(
                "the receive waiting",
                Duration.ofSeconds(10),
                () -> admin.get("api/queues/" + queue).json().getInt("waiting") == 1);

        assertEquals(
                200,
                admin.put("api/queues/" + queue, "{\"grants\": {\"consume\": [\"user:consumer\"]}}")
                        .status());
        assertEquals(201, send(producer).status()); // wakes the waiting receive: its next claim

        notGranted(waiting.get(30, TimeUnit.SECONDS), "'partner' is not granted consume on queue " + queue);
        assertEquals(
                1,
                receive(consumer, 0).json().getJsonArray("messages").size(),
                "the message stayed for the granted receiver");
    }

    @Test
    void should_refuse_malformed_grants_with_400_and_change_nothing() {
        admin.put("api/queues/" + queue, "{\"grants\": {\"send\": [\"user:producer\"]}}");
        for (String bad : new String[] {
            "{\"grants\": []}",
            "{\"grants\": {\"publish\": [\"user:a\"]}}",
            "{\"grants\": {\"send\": [\"producer\"]}}",
            "{\"grants\": {\"send\": [\"user:a b\"]}}"
        }) {
            Http.Response refused = admin.put("api/queues/" + queue, bad);
            assertEquals(400, refused.status(), bad + " " + refused);
            assertEquals("application/problem+json", refused.contentType());
        }
        assertEquals(
                "{\"send\":[\"user:producer\"]}",
                admin.get("api/queues/" + queue).json().getJsonObject("grants").toString());
    }

    /** The producers and subscribers of the topic tests: every user acts for them, so the topic's grants decide. */
    private static final String ACTING = "\"principals\": [\"user:producer\", \"user:consumer\", \"user:partner\"]";

    @Test
    void should_let_only_the_principals_of_a_producer_act_for_it_and_of_a_subscriber_report_for_it() {
        String topic = "ga" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String app = "gp" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String nobodys = "gn" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        Http.Response registered = admin.post(
                "api/producers",
                "{\"name\": \"" + app + "\", \"checkBackUrl\": \"http://localhost/check-back\", "
                        + "\"principals\": [\"group:partners\"]}");
        assertEquals(201, registered.status(), registered::toString);
        assertEquals(
                "[\"group:partners\"]",
                registered.json().getJsonArray("principals").toString());
        assertEquals(
                201,
                admin.post(
                                "api/producers",
                                "{\"name\": \"" + nobodys + "\", \"checkBackUrl\": \"http://localhost/check-back\"}")
                        .status());
        Http.Response subscribed = admin.post(
                "api/topics/" + topic + "/subscribers", "{\"name\": \"s\", \"principals\": [\"user:consumer\"]}");
        assertEquals(201, subscribed.status(), subscribed::toString);
        assertEquals(
                201,
                admin.post("api/topics/" + topic + "/subscribers", "{\"name\": \"t\"}")
                        .status());

        String prepare = "{\"topic\": \"" + topic + "\", \"producer\": \"" + app + "\", \"payload\": {\"n\": 1}}";
        notGranted(producer.post("api/messages", prepare), "'producer' may not act for producer " + app);
        notGranted(
                partner.post("api/messages", prepare.replace(app, nobodys)),
                "'partner' may not act for producer " + nobodys);
        Http.Response prepared = partner.post("api/messages", prepare);
        assertEquals(201, prepared.status(), "a member of the producer's group: " + prepared);
        String id = prepared.json().getString("id");
        notGranted(producer.post("api/messages/" + id + "/confirm", "{\"payload\": {\"forged\": true}}"), null);
        notGranted(producer.delete("api/messages/" + id), null);
        JsonObject settled = producer.post(
                        "api/messages/settles",
                        "{\"settles\": [{\"messageId\": \"" + id + "\", \"outcome\": \"ROLLED_BACK\"}]}")
                .json()
                .getJsonArray("results")
                .getJsonObject(0);
        assertEquals(403, settled.getInt("status"), settled::toString);
        assertEquals("PENDING", admin.get("api/messages/" + id).json().getString("state"), "refusals change nothing");
        assertEquals(
                "SENT",
                partner.post("api/messages/" + id + "/confirm", "").json().getString("state"));

        notGranted(
                partner.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"s\"}"),
                "'partner' may not act for subscriber s of topic " + topic);
        notGranted(partner.post("api/messages/" + id + "/failed", "{\"subscriber\": \"s\", \"reason\": \"x\"}"), null);
        notGranted(consumer.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"t\"}"), null);
        JsonObject reported = partner.post(
                        "api/messages/reports",
                        "{\"reports\": [{\"messageId\": \"" + id
                                + "\", \"subscriber\": \"s\", \"outcome\": \"CONSUMED\"}]}")
                .json()
                .getJsonArray("results")
                .getJsonObject(0);
        assertEquals(403, reported.getInt("status"), reported::toString);
        assertEquals(
                "SENT",
                consumer.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"s\"}")
                        .json()
                        .getString("state"),
                "the subscriber's principal reports; t, whose principals are none, waits for an admin");
        assertEquals(
                "COMPLETED",
                admin.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"t\"}")
                        .json()
                        .getString("state"));

        // Registering again without principals keeps them; with them replaces them.
        String url = "\"checkBackUrl\": \"http://localhost/check-back\"";
        admin.post("api/producers", "{\"name\": \"" + app + "\", " + url + "}");
        notGranted(producer.post("api/messages", prepare), null);
        admin.post("api/producers", "{\"name\": \"" + app + "\", " + url + ", \"principals\": [\"user:producer\"]}");
        assertEquals(201, producer.post("api/messages", prepare).status());
        for (String bad : new String[] {"\"user:producer\"", "[\"alice\"]", "[1]"}) {
            Http.Response refused = admin.post(
                    "api/producers", "{\"name\": \"" + app + "\", " + url + ", \"principals\": " + bad + "}");
            assertEquals(400, refused.status(), bad + " " + refused);
        }
    }

    @Test
    void should_let_only_granted_users_prepare_to_and_report_on_a_topic() {
        String topic = "gt" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String app = "gp" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertEquals(
                201,
                admin.post(
                                "api/producers",
                                "{\"name\": \"" + app + "\", \"checkBackUrl\": \"http://localhost/check-back\", "
                                        + ACTING + "}")
                        .status());
        Http.Response defined = admin.put(
                "api/topics/" + topic,
                "{\"grants\": {\"send\": [\"user:partner\"], \"consume\": [\"user:consumer\"]}}");
        assertEquals(200, defined.status(), defined::toString);
        assertEquals(0, defined.json().getJsonArray("subscribers").size(), "grants may come before subscribers");
        assertEquals(
                201,
                admin.post("api/topics/" + topic + "/subscribers", "{\"name\": \"s\", " + ACTING + "}")
                        .status());
        assertEquals(
                "{\"send\":[\"user:partner\"],\"consume\":[\"user:consumer\"]}",
                admin.get("api/topics/" + topic).json().getJsonObject("grants").toString());

        String prepare = "{\"topic\": \"" + topic + "\", \"producer\": \"" + app + "\", \"payload\": {\"n\": 1}}";
        notGranted(producer.post("api/messages", prepare), "'producer' is not granted send on topic " + topic);
        Http.Response prepared = partner.post("api/messages", prepare);
        assertEquals(201, prepared.status(), prepared::toString);
        String id = prepared.json().getString("id");
        notGranted(producer.post("api/messages/" + id + "/confirm", ""), null);
        notGranted(producer.delete("api/messages/" + id), null);
        assertEquals("PENDING", admin.get("api/messages/" + id).json().getString("state"), "refusals change nothing");
        assertEquals(
                "SENT",
                partner.post("api/messages/" + id + "/confirm", "").json().getString("state"));

        notGranted(producer.get("api/messages/" + id), null);
        assertTrue(
                producer.get("api/messages?topic=" + topic)
                        .json()
                        .getJsonArray("messages")
                        .isEmpty(),
                "a query leaves out what the caller may not read");
        assertEquals(
                1,
                consumer.get("api/messages?topic=" + topic)
                        .json()
                        .getJsonArray("messages")
                        .size());
        notGranted(
                partner.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"s\"}"),
                "'partner' is not granted consume on topic " + topic);
        notGranted(partner.post("api/messages/" + id + "/failed", "{\"subscriber\": \"s\", \"reason\": \"x\"}"), null);
        assertEquals(
                "COMPLETED",
                consumer.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"s\"}")
                        .json()
                        .getString("state"));

        assertEquals(200, admin.put("api/topics/" + topic, "{\"grants\": {}}").status());
        assertEquals(201, producer.post("api/messages", prepare).status(), "lifted: the role decides");
        assertEquals(400, admin.put("api/topics/" + topic, "{}").status(), "grants are what a topic definition holds");
    }

    @Test
    void should_admit_readers_of_a_topic_with_grants_only_through_them() {
        String app = "gp" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertEquals(
                201,
                admin.post(
                                "api/producers",
                                "{\"name\": \"" + app + "\", \"checkBackUrl\": \"http://localhost/check-back\", "
                                        + ACTING + "}")
                        .status());
        // Consumers narrowed to a group, senders not: the producers send, and only the group reads.
        String consumed = "gr" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertEquals(
                200,
                admin.put("api/topics/" + consumed, "{\"grants\": {\"consume\": [\"group:partners\"]}}")
                        .status());
        String id = prepared(producer, consumed, app);
        for (Http outsider : new Http[] {producer, consumer}) {
            notGranted(outsider.get("api/messages/" + id), null);
            assertTrue(
                    outsider.get("api/messages?topic=" + consumed)
                            .json()
                            .getJsonArray("messages")
                            .isEmpty(),
                    "the query leaves the topic's messages out");
        }
        assertEquals(200, partner.get("api/messages/" + id).status(), "a member of the granted group reads");
        assertEquals(
                1,
                partner.get("api/messages?topic=" + consumed)
                        .json()
                        .getJsonArray("messages")
                        .size());

        // The README's send-only example: only the named sender reads, not every producer or consumer.
        String sent = "gs" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertEquals(
                200,
                admin.put("api/topics/" + sent, "{\"grants\": {\"send\": [\"user:partner\"]}}")
                        .status());
        String other = prepared(partner, sent, app);
        notGranted(producer.get("api/messages/" + other), "'producer' is not granted send on topic " + sent);
        notGranted(consumer.get("api/messages/" + other), null);
        assertEquals(200, partner.get("api/messages/" + other).status());
        assertEquals(200, admin.get("api/messages/" + other).status(), "admins are never narrowed");

        assertEquals(200, admin.put("api/topics/" + sent, "{\"grants\": {}}").status());
        assertEquals(200, consumer.get("api/messages/" + other).status(), "lifted: the role decides");
    }

    private String prepared(Http as, String topic, String producer) {
        admin.post(
                "api/topics/" + topic + "/subscribers",
                "{\"name\": \"s\", " + ACTING + "}"); // a topic needs a subscriber
        Http.Response prepared = as.post(
                "api/messages",
                "{\"topic\": \"" + topic + "\", \"producer\": \"" + producer + "\", \"payload\": {\"n\": 1}}");
        assertEquals(201, prepared.status(), prepared::toString);
        return prepared.json().getString("id");
    }

    private Http.Response send(Http as) {
        return send(as, "{\"payload\": {\"n\": 1}}");
    }

    private Http.Response send(Http as, String body) {
        return as.post("api/queues/" + queue + "/messages", body);
    }

    private Http.Response receive(Http as, int waitSeconds) {
        return as.post("api/queues/" + queue + "/receive", "{\"max\": 1, \"waitSeconds\": " + waitSeconds + "}");
    }

    private static void notGranted(Http.Response response, String detail) {
        assertEquals(403, response.status(), response::toString);
        assertEquals("urn:courier:problem:not-granted", response.json().getString("type"), response::toString);
        if (detail != null) {
            assertEquals(detail, response.json().getString("detail"));
        }
    }
}
