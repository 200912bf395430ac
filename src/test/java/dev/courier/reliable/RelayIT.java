package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Postgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The relay's claim on a batch and its life: an error on its thread does not end it; a claim is kept while a
 * refused mark is tried again (so no other relay publishes the batch meanwhile), and is not held longer than
 * {@code courier.reliable.relay-claim-timeout} (10 s in the tests) by a relay that stopped moving, so another relay
 * publishes it well within the broker's duplicate-id window. Each ends with the message delivered once.
 */
@ExtendWith(ArquillianExtension.class)
class RelayIT {

    private final Fixture f = new Fixture();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void disarm() {
        f.http.delete("api/test/faults");
    }

    @Test
    void the_relay_outlives_an_error_on_its_thread() {
        f.register(f.producer, "BARRIER").subscribe("a");
        assertEquals(
                204,
                f.http.post("api/test/faults/" + Relay.TURN + "?error=true", "").status());
        String first = f.order("").getString("messageId");
        Eventually.until("the error thrown", Fixture.SETTLE, () -> left(Relay.TURN) == 0);
        assertEquals( // and in a batch, inside the relay's EJB
                204,
                f.http.post("api/test/faults/" + RelayBatches.BEFORE_PUBLISH + "?error=true", "")
                        .status());
        String second = f.order("").getString("messageId");
        Eventually.until("the error in a batch thrown", Fixture.SETTLE, () -> left(RelayBatches.BEFORE_PUBLISH) == 0);
        String third = f.order("").getString("messageId");

        Eventually.until("all relayed", Fixture.SETTLE, () -> Broker.messagesAdded(f.topic + ".a") == 3);
        for (int i = 0; i < 3; i++) {
            assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        }
        for (String id : List.of(first, second, third)) {
            f.awaitState(id, "COMPLETED");
        }
    }

    @Test
    void a_refused_mark_is_tried_again_holding_the_claim() throws SQLException {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "claims lock rows on PostgreSQL");
        f.register(f.producer, "BARRIER").subscribe("a");
        assertEquals(
                204,
                f.http.post("api/test/faults/" + RelayBatches.MARK_REFUSED, "").status());
        assertEquals(
                204,
                f.http.post("api/test/faults/" + RelayBatches.MARK_RETRY + "?hold=true", "")
                        .status());
        String id = f.order("").getString("messageId");
        Eventually.until("the mark refused, its retry held", Fixture.SETTLE, () -> held(RelayBatches.MARK_RETRY) == 1);

        assertTrue(claimed(id), "the batch's claim is kept between the refusal and the retry");

        f.http.delete("api/test/faults");
        Eventually.until(
                "the mark made", Fixture.SETTLE, () -> f.delivery(id, "a").containsKey("nextAttemptAt"));
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"), "one copy");
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        f.awaitState(id, "COMPLETED");
    }

    @Test
    void a_relay_that_stops_moving_holds_its_claim_no_longer_than_the_claim_timeout() throws SQLException {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "claims lock rows on PostgreSQL");
        f.register(f.producer, "BARRIER").subscribe("a");
        assertEquals(
                204,
                f.http.post("api/test/faults/" + RelayBatches.AFTER_BROKER_COMMIT + "?hold=true", "")
                        .status());
        String id = f.order("").getString("messageId");
        Eventually.until("published, the mark held", Fixture.SETTLE, () -> held(RelayBatches.AFTER_BROKER_COMMIT) == 1);
        assertTrue(claimed(id), "the batch is claimed while the relay is stopped");

        Eventually.until("the claim released", Fixture.SETTLE, () -> !claimed(id));

        f.http.delete("api/test/faults"); // the stopped relay's mark fails: its session is gone; it publishes again
        Eventually.until("marked", Fixture.SETTLE, () -> f.delivery(id, "a").containsKey("nextAttemptAt"));
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"), "the copy published again was dropped as a duplicate");
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        assertFalse(f.consume("a", false).isPresent(), "no second copy");
        f.awaitState(id, "COMPLETED");
    }

    /** Whether message {@code id}'s outbox entry is locked by a claim (an outbox row nobody holds can be locked). */
    private static boolean claimed(String id) {
        try (Connection c = Postgres.courier()) {
            c.setAutoCommit(false);
            try (PreparedStatement lock =
                    c.prepareStatement("SELECT id FROM courier_rm_outbox WHERE message_id = ? FOR UPDATE NOWAIT")) {
                lock.setString(1, id);
                try (ResultSet rows = lock.executeQuery()) {
                    assertTrue(rows.next(), "the entry is in the outbox");
                    return false;
                }
            } catch (SQLException e) {
                if ("55P03".equals(e.getSQLState())) {
                    return true;
                }
                throw e;
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private int held(String point) {
        return f.http.get("api/test/faults/" + point + "/held").json().getInt("held");
    }

    private int left(String point) {
        return f.http.get("api/test/faults/" + point + "/held").json().getInt("left");
    }
}
