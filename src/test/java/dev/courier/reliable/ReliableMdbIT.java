package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.InboxListeners;
import java.time.Duration;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link dev.courier.client.ReliableConsumer} in message-driven beans, in both documented modes: the bean-managed
 * MDB (inbox and effect in one local transaction, no 2PC) and the container-managed one (one XA transaction over
 * the receive and the database). Each message's effect is counted in the consumer's table, its handlings in the
 * MDB, its attempts in Courier's ledger. The MDBs' endpoints start only after their subscribers are registered
 * (autoStart false, resumed by the test application). And the queue a consumer made the broker create, before its
 * subscriber existed, is replaced by subscribing.
 */
@ExtendWith(ArquillianExtension.class)
class ReliableMdbIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    private static String send(Fixture f, String payload) {
        String id = f.prepare(payload, 30);
        assertEquals(200, f.http.post("api/messages/" + id + "/confirm", "").status());
        return id;
    }

    private static int handled(Fixture f, String id) {
        return f.http.get("api/test/apps/mdb/handled?messageId=" + id).json().getInt("count");
    }

    /** Sends {@code count} messages to the MDB of {@code topic}; each is applied once, from one copy. */
    private static void assertEachAppliedOnce(String topic, int count) {
        Fixture f = new Fixture(topic);
        f.register(f.producer, "BARRIER");
        String[] ids = new String[count];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = send(f, "{\"n\": " + i + "}");
        }
        for (String id : ids) {
            f.awaitState(id, "COMPLETED");
            assertEquals(1, f.effects(id, InboxListeners.SUBSCRIBER), "one effect per message");
            assertEquals(1, handled(f, id), "handled once");
            assertEquals(1, f.delivery(id, InboxListeners.SUBSCRIBER).getInt("attempts"), "one copy");
        }
    }

    @Test
    void the_bean_managed_mdb_applies_each_message_once_and_its_batched_reports_complete_them() {
        assertEachAppliedOnce(InboxListeners.LOCAL, 20);
    }

    @Test
    void a_failure_in_the_bean_managed_mdb_rolls_its_effect_back_and_the_next_copy_comes_from_courier() {
        Fixture f = new Fixture(InboxListeners.LOCAL);
        f.register(f.producer, "BARRIER");
        String id = send(f, "{\"fail\": 1}");
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, InboxListeners.SUBSCRIBER), "the failed handling's row rolled back");
        assertEquals(2, handled(f, id), "failed once, then applied");
        // The failed copy was acknowledged: the second is Courier's redelivery after the failed report.
        assertEquals(2, f.delivery(id, InboxListeners.SUBSCRIBER).getInt("attempts"), "Courier sent a second copy");
    }

    @Test
    void the_container_managed_xa_mdb_applies_each_message_once() {
        assertEachAppliedOnce(InboxListeners.XA, 10);
    }

    @Test
    void a_failure_in_the_xa_mdb_rolls_back_the_receive_and_the_broker_redelivers_the_same_copy() {
        Fixture f = new Fixture(InboxListeners.XA);
        f.register(f.producer, "BARRIER");
        long added = Broker.messagesAdded(InboxListeners.XA + "." + InboxListeners.SUBSCRIBER);
        String id = send(f, "{\"fail\": 1}");
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, InboxListeners.SUBSCRIBER), "the failed handling's row rolled back");
        assertEquals(2, handled(f, id), "failed once, then applied from the broker's redelivery");
        // The broker put the rolled-back copy back: one message added to the queue, handled twice.
        assertEquals(added + 1, Broker.messagesAdded(InboxListeners.XA + "." + InboxListeners.SUBSCRIBER));
    }

    @Test
    void subscribing_replaces_the_queue_the_broker_auto_created_for_an_early_consumer() {
        Fixture f = new Fixture();
        String queue = f.topic + ".early";
        // A consumer asking for the subscriber's queue before it exists: the broker creates an anycast queue.
        assertTrue(Broker.receive(queue, Duration.ofMillis(200)).isEmpty());
        f.register(f.producer, "BARRIER").subscribe("early");
        String id = send(f, "{\"n\": 1}");
        Broker.Received copy = Broker.receive(Fixture.queue(f.topic, "early"), Duration.ofSeconds(10))
                .orElseThrow(() -> new AssertionError("the copy did not reach the subscriber's queue"));
        assertEquals(id, copy.courierMessageId());
    }

    @Test
    void the_helpers_in_process_apply_each_message_once_and_the_in_process_api_refuses_as_the_rest_api_does() {
        Fixture f = new Fixture(InboxListeners.LOCAL);
        f.register(f.producer, "BARRIER");
        assertEquals(204, f.http.put("api/test/apps/transport/local", "").status());
        try {
            String[] ids = new String[10];
            for (int i = 0; i < ids.length; i++) {
                jakarta.json.JsonObject order = f.order("&async=true");
                assertTrue(order.containsKey("messageId"), order::toString);
                ids[i] = order.getString("messageId");
            }
            for (String id : ids) {
                f.awaitState(id, "COMPLETED");
                assertEquals(1, f.effects(id, InboxListeners.SUBSCRIBER), "one effect per message");
                assertEquals(1, f.orders(id), "one order row per message");
            }
            jakarta.json.JsonObject answers = f.http.post(
                            "api/test/apps/local/answers?topic=" + f.topic + "&producer=" + f.producer, "")
                    .json();
            assertEquals(404, answers.getInt("confirmUnknown"), answers::toString);
            assertTrue(answers.getString("reportUnknown").startsWith("404"), answers::toString);
            assertEquals(400, answers.getInt("badTopic"), answers::toString);
            // A prepare commits on its own: the caller's rollback leaves it pending, for the check-back to settle.
            String kept = answers.getString("preparedInRolledBack");
            assertEquals("PENDING", f.http.get("api/messages/" + kept).json().getString("state"));
        } finally {
            assertEquals(204, f.http.put("api/test/apps/transport/http", "").status());
        }
    }

    @Test
    void the_message_driven_beans_consume_again_after_the_broker_restarts() {
        Fixture f = new Fixture(InboxListeners.LOCAL);
        f.register(f.producer, "BARRIER");
        f.awaitState(send(f, "{\"before\": 1}"), "COMPLETED");
        Broker.stop();
        Broker.start();
        // Before the fix nothing set the beans' sessions up again: the queue kept 0 consumers until the server
        // restarted, and this message waited on the broker.
        String id = send(f, "{\"after\": 1}");
        f.awaitState(id, "COMPLETED");
        assertEquals(1, f.effects(id, InboxListeners.SUBSCRIBER), "applied once");
        Fixture xa = new Fixture(InboxListeners.XA);
        xa.register(xa.producer, "BARRIER");
        xa.awaitState(send(xa, "{\"after\": 1}"), "COMPLETED");
    }
}
