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
    void a_refused_mark_is_tried_again_holding_the_claim() {
        assertEquals(
                204,
                f.http.post("api/test/faults/" + RelayBatches.MARK_REFUSED, "").status());
        String id = orderHeldAt(RelayBatches.MARK_RETRY, "the mark refused, its retry held");

        assertTrue(claimed(id), "the batch's claim is kept between the refusal and the retry");

        f.http.delete("api/test/faults");
        Eventually.until(
                "the mark made", Fixture.SETTLE, () -> f.delivery(id, "a").containsKey("nextAttemptAt"));
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"), "one copy");
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        f.awaitState(id, "COMPLETED");
    }

    @Test
    void a_relay_that_stops_moving_holds_its_claim_no_longer_than_the_claim_timeout() {
        String id = orderHeldAt(RelayBatches.AFTER_BROKER_COMMIT, "published, the mark held");
        assertTrue(claimed(id), "the batch is claimed while the relay is stopped");

        Eventually.until("the claim released", Fixture.SETTLE, () -> !claimed(id));

        f.http.delete("api/test/faults"); // the stopped relay's mark fails: its session is gone; it publishes again
        Eventually.until("marked", Fixture.SETTLE, () -> f.delivery(id, "a").containsKey("nextAttemptAt"));
        assertEquals(1, Broker.messagesAdded(f.topic + ".a"), "the copy published again was dropped as a duplicate");
        assertTrue(f.consume("a", false).orElseThrow().getBoolean("processed"));
        assertFalse(f.consume("a", false).isPresent(), "no second copy");
        f.awaitState(id, "COMPLETED");
    }

    /**
     * The duplicate-id window the README states: 200,000 copies per address, which at 20 subscribers holds 30 s
     * (the longest a batch waits for its mark) of 300 messages a second.
     */
    @Test
    void the_broker_keeps_the_duplicate_ids_of_200000_copies_per_address() {
        assertEquals(200_000, Broker.idCacheSize());
    }

    /**
     * On PostgreSQL (where a claim locks the batch's rows), an order whose relay stops at the held {@code point}.
     * @return the order's message id
     */
    private String orderHeldAt(String point, String what) {
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "claims lock rows on PostgreSQL");
        f.register(f.producer, "BARRIER").subscribe("a");
        assertEquals(
                204, f.http.post("api/test/faults/" + point + "?hold=true", "").status());
        String id = f.order("").getString("messageId");
        Eventually.until(what, Fixture.SETTLE, () -> held(point) == 1);
        return id;
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
