package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The protocol's happy path end to end: helper producer, broker, plain JMS client and helper consumer. */
@ExtendWith(ArquillianExtension.class)
class ReliableFlowIT {

    private final Fixture f = new Fixture();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_deliver_a_committed_order_to_every_subscriber_and_complete_when_all_consumed() {
        f.register(f.producer, "BARRIER").subscribe("billing", "shipping");

        JsonObject order = f.order("");
        String id = order.getString("messageId");

        assertEquals("SENT", f.state(id), "confirmed right after the producer's commit");
        assertEquals(1, f.orders(id));
        assertEquals(Map.of("billing", "DELIVERED", "shipping", "DELIVERED"), f.deliveries(id));
        // A plain JMS client outside Courier reads the subscriber queue by its fully qualified name.
        Broker.Received plain = Broker.receive(Fixture.queue(f.topic, "billing"), Duration.ofSeconds(10))
                .orElseThrow();
        assertEquals(id, plain.courierMessageId());
        assertEquals("{\"order\":\"" + order.getString("order") + "\"}", plain.body());
        assertEquals(
                200,
                f.http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"billing\"}")
                        .status());
        assertEquals("SENT", f.state(id), "one subscriber still to report");

        JsonObject consumed = f.consume("shipping", false).orElseThrow();
        assertEquals(id, consumed.getString("id"));
        assertTrue(consumed.getBoolean("processed"));

        f.awaitState(id, "COMPLETED");
        assertEquals(Map.of("billing", "CONSUMED", "shipping", "CONSUMED"), f.deliveries(id));
        assertEquals(1, f.effects(id, "shipping"));
        JsonObject message = f.message(id);
        assertEquals(
                7,
                message.getJsonArray("history").size(),
                message::toString); // prepared, sent, 2 published, 2 consumed, completed
        assertEquals(1, Broker.messagesAdded(f.topic + ".billing"), "published once to each queue");
        assertEquals(1, Broker.messagesAdded(f.topic + ".shipping"));
    }

    @Test
    void should_publish_the_final_payload_given_at_confirm() {
        f.register(f.producer, "BARRIER").subscribe("audit");
        String id = f.prepare("{\"version\": null}", 10);

        Http.Response confirmed = f.http.post(
                "api/messages/" + id + "/confirm",
                "{\"payload\": {\"version\": 42}, \"headers\": {\"tenant\": \"acme\"}}");

        assertEquals(200, confirmed.status(), confirmed::toString);
        assertEquals("SENT", confirmed.json().getString("state"));
        assertEquals(
                "{\"version\":42}",
                Broker.receive(Fixture.queue(f.topic, "audit"), Duration.ofSeconds(10))
                        .orElseThrow()
                        .body());
        assertEquals("acme", f.message(id).getJsonObject("headers").getString("tenant"));
    }
}
