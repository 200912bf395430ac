package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.LibertyProcess;
import jakarta.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay's window, with a real crash: Courier is killed with SIGKILL after the broker committed a batch and
 * before the relay marked it published. After the restart the relay publishes the batch again: two copies on the
 * wire, and the consumer helper's inbox applies the effect once. Producer and consumer are the real helpers (the
 * test applications of the tests' archive); the effect is counted in the consumer's own table. Runs in the crash
 * execution (it kills and restarts the server).
 */
class RelayCrashIT {

    private static final LibertyProcess LIBERTY = new LibertyProcess();

    @BeforeAll
    static void startServer() throws Exception {
        LIBERTY.deploy(CourierDeployment.exported());
        LIBERTY.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        LIBERTY.stop();
        LIBERTY.undeploy();
    }

    @Test
    void killed_between_the_broker_commit_and_the_mark_publishes_again_and_the_inbox_applies_once() throws Exception {
        Fixture f = new Fixture();
        // A long delivery timeout: the second copy must be the relay's, not a redelivery.
        f.register(f.producer, "BARRIER").subscribe(600, 10, "inbox");
        String queue = f.topic + ".inbox";
        assertEquals(204, f.http.post("api/test/faults/" + RelayBatches.AFTER_BROKER_COMMIT + "?hold=true", "").status());

        String id = f.order("").getString("messageId"); // the producer helper: order row, prepare, commit, confirm
        Eventually.until("the relay held after the broker's commit", Fixture.SETTLE, () ->
                f.http.get("api/test/faults/" + RelayBatches.AFTER_BROKER_COMMIT + "/held").json().getInt("held") == 1);
        assertEquals(1, Broker.messagesAdded(queue), "the batch is on the broker");
        assertEquals(1, f.orders(id), "the order committed with its message");

        LIBERTY.kill();
        LIBERTY.start();

        Eventually.until("published again after the restart", Duration.ofSeconds(60), () -> Broker.messagesAdded(queue) == 2);
        JsonObject first = f.consume("inbox", false).orElseThrow();
        JsonObject second = f.consume("inbox", false).orElseThrow();
        assertEquals(id, first.getString("id"));
        assertEquals(id, second.getString("id"));
        assertTrue(first.getBoolean("processed"), first::toString);
        assertFalse(second.getBoolean("processed"), "the second copy is a duplicate the inbox skips: " + second);
        assertEquals(1, f.effects(id, "inbox"), "one effect for two copies");
        f.awaitState(id, "COMPLETED");
        assertTrue(f.consume("inbox", false).isEmpty(), "no third copy");
    }
}
