package dev.courier.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The scenario in each mode: orders placed, some out of stock, and the consistency endpoint (which reads both
 * databases) agreeing that every order has exactly one reservation or a rejection and no stock is negative.
 */
@ExtendWith(ArquillianExtension.class)
class ScenarioIT {

    private static final Duration SETTLE = Duration.ofSeconds(30);

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void disarm() {
        http.delete("api/test/faults");
        http.delete("lab-orders/api/test/faults");
    }

    @Test
    void xa_reserves_what_is_in_stock_and_refuses_the_rest_writing_nothing() {
        String sku = scarce(3);
        JsonObject before = counts("xa");

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Http.Response placed = http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + sku + "\"}");
            statuses.add(placed.status());
            if (placed.status() == 201) {
                assertEquals("RESERVED", placed.json().getString("state"));
            } else {
                assertEquals("application/problem+json", placed.contentType());
            }
        }
        assertEquals(201, http.post("lab-orders/api/orders?mode=xa", "").status(), "the default item, quantity 1");

        assertEquals(List.of(201, 201, 201, 409, 409), statuses);
        JsonObject after = counts("xa");
        assertEquals(4, delta(before, after, "orders"), "a refused order wrote nothing");
        assertEquals(4, delta(before, after, "reserved"));
        assertConsistent(after);
    }

    @Test
    void xa_rolls_back_order_and_reservation_together_when_the_transaction_fails() {
        String sku = scarce(1);
        JsonObject before = counts("xa");
        http.post("lab-orders/api/test/faults/scenario.xa.before-publish", "");

        Http.Response failed = http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + sku + "\"}");

        assertEquals(500, failed.status(), failed::toString);
        assertEquals(0, delta(before, counts("xa"), "orders"));
        assertEquals(
                201,
                http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + sku + "\"}")
                        .status(),
                "the one item is still in stock");
    }

    @Test
    void xa_ships_each_committed_order_once_from_its_event_and_nothing_for_a_refused_or_rolled_back_one() {
        Http.Response refused = http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + scarce(0) + "\"}");
        assertEquals(409, refused.status(), refused::toString);
        String sku = scarce(3);
        http.post("lab-orders/api/test/faults/scenario.xa.before-publish?times=1", "");
        Http.Response rolledBack = http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + sku + "\"}");
        assertEquals(500, rolledBack.status(), rolledBack::toString);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Http.Response placed = http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + sku + "\"}");
            assertEquals(201, placed.status(), placed::toString);
            ids.add(placed.json().getString("orderId"));
        }

        for (String id : ids) {
            JsonObject shipment = shipment(id); // one at most: the shipment's key is the order's id
            assertTrue(shipment.getInt("delivery") >= 1, shipment::toString);
        }
        // The refused and the rolled-back order published nothing: no shipment without its order. Read once the
        // later orders' events were consumed, after any event of the two would have been.
        JsonObject shipping = consistency().getJsonObject("shipping");
        assertEquals(0, shipping.getJsonNumber("orphaned").longValue(), shipping::toString);
        assertConsistent(counts("xa"));
    }

    @Test
    void xa_lock_holds_count_each_committed_order_since_the_reset_and_none_for_a_refused_one() {
        assertEquals(204, http.delete("lab-orders/api/xa/lock-holds").status());
        assertEquals(0, http.get("lab-orders/api/xa/lock-holds").json().getInt("count"));
        assertEquals(
                409,
                http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"" + scarce(0) + "\"}")
                        .status());
        assertEquals(201, http.post("lab-orders/api/orders?mode=xa", "").status());
        assertEquals(201, http.post("lab-orders/api/orders?mode=xa", "").status());
        JsonObject holds = http.get("lab-orders/api/xa/lock-holds").json();
        assertEquals(2, holds.getInt("count"), holds::toString);
        double p50 = holds.getJsonNumber("p50Ms").doubleValue();
        assertTrue(p50 > 0 && p50 <= holds.getJsonNumber("maxMs").doubleValue(), holds::toString);
    }

    @Test
    void xa_shipment_failing_after_its_write_rolls_back_with_the_receive_and_is_booked_once_by_the_redelivery() {
        // Every event before this one is consumed first (none left in the subscription's queue, none being
        // delivered: the broker's count holds both), so the armed fault meets this test's event.
        shipment(http.post("lab-orders/api/orders?mode=xa", "").json().getString("orderId"));
        Eventually.until(
                "earlier OrderPlaced events consumed",
                java.time.Duration.ofSeconds(60),
                () -> Broker.messageCount("scenario-shipping") == 0);
        http.post("api/test/faults/" + XaOrderPlacedListener.AFTER_SHIPMENT + "?times=1", "");

        Http.Response placed = http.post("lab-orders/api/orders?mode=xa", "");
        assertEquals(201, placed.status(), placed::toString);

        JsonObject shipment = shipment(placed.json().getString("orderId"));
        assertEquals(
                2,
                shipment.getInt("delivery"),
                "the first copy's shipment rolled back with its receive; the broker's second copy booked it");
        assertEquals(
                0,
                consistency()
                        .getJsonObject("shipping")
                        .getJsonNumber("orphaned")
                        .longValue());
    }

    @Test
    @EnabledIfSystemProperty(named = "courier.db", matches = "postgres") // the queue library needs the SQL API
    void queue_accepts_every_order_and_settles_each_as_reserved_or_rejected() {
        assertAcceptsAndSettles("queue", scarce(3));
    }

    @Test
    void rms_accepts_every_order_and_settles_each_through_the_inventory_reply() {
        String sku = scarce(3);
        rmsSetUp();
        assertAcceptsAndSettles("rms", sku);
    }

    @Test
    void rms_orders_fail_fast_and_write_nothing_while_courier_cannot_be_reached() {
        Eventually.until(
                "the rms mode set up",
                SETTLE,
                () -> http.post("lab-orders/api/orders?mode=rms", "").status() == 201);
        long before = counts("rms").getJsonNumber("orders").longValue();
        // Courier unreachable until the fault is disarmed: 10 orders answer 503, and with half (or more) of the
        // last 10 calls failed the circuit is open, whatever came before them.
        String point = "scenario.rms.courier-call";
        http.post("lab-orders/api/test/faults/" + point + "?times=1000", "");
        try {
            for (int i = 0; i < 10; i++) {
                Http.Response refused = http.post("lab-orders/api/orders?mode=rms", "");
                assertEquals(503, refused.status(), refused::toString);
                assertEquals("Courier unavailable", refused.json().getString("title"));
            }
            // The circuit is open: the next order is refused without calling Courier.
            int calls = ordersLeft(point);
            Http.Response open = http.post("lab-orders/api/orders?mode=rms", "");
            assertEquals(503, open.status(), open::toString);
            assertEquals(calls, ordersLeft(point), "the open circuit refused the order without calling Courier");
            assertEquals(before, counts("rms").getJsonNumber("orders").longValue(), "no refused order was written");
        } finally {
            http.delete("lab-orders/api/test/faults"); // Courier reachable again
        }
        // After the circuit's delay (5 s) orders go through again.
        Eventually.until(
                "the circuit closed again",
                Duration.ofSeconds(30),
                () -> http.post("lab-orders/api/orders?mode=rms", "").status() == 201);
    }

    private int left(String point) {
        return http.get("api/test/faults/" + point + "/held").json().getInt("left");
    }

    /** How many more times the orders service's {@code point} fails (its own test seam). */
    private int ordersLeft(String point) {
        return http.get("lab-orders/api/test/faults/" + point + "/held").json().getInt("left");
    }

    @Test
    void the_demo_services_answer_only_check_backs_that_courier_signed() {
        Eventually.until(
                "the rms mode set up",
                SETTLE,
                () -> http.post("lab-orders/api/orders?mode=rms", "").status() == 201);
        Http.Response unsigned =
                http.anonymous().get("api/scenario/check-back/orders?id=" + java.util.UUID.randomUUID());
        assertEquals(401, unsigned.status(), unsigned::toString);
        assertEquals("urn:courier:problem:bad-signature", unsigned.json().getString("type"));

        // A message of the orders service that nobody confirms: Courier checks back, signed, and the barrier
        // answers that no such transaction committed.
        Http.Response prepared = http.post(
                "api/messages",
                "{\"topic\": \"scenario-orders\", \"producer\": "
                        + "\"scenario-orders\", \"payload\": {\"orphan\": true}, \"checkBackSeconds\": 0.2}");
        assertEquals(201, prepared.status(), prepared::toString);
        String id = prepared.json().getString("id");
        Eventually.until(
                "checked back and cancelled",
                SETTLE,
                () -> http.get("api/messages/" + id).json().getString("state").equals("CANCELLED"));
    }

    /** Waits until the rms mode takes orders and has settled a first one (its reservation counted before a test). */
    private void rmsSetUp() {
        String first = Eventually.await("the rms mode set up", SETTLE, () -> {
            Http.Response placed = http.post("lab-orders/api/orders?mode=rms", "");
            return placed.status() == 201
                    ? java.util.Optional.of(placed.json().getString("orderId"))
                    : java.util.Optional.empty();
        });
        Eventually.until("the first order settled", SETTLE, () -> state(first).equals("RESERVED"));
    }

    /** An asynchronous mode: five orders for three items are all accepted, then three reserved and two rejected. */
    private void assertAcceptsAndSettles(String mode, String sku) {
        JsonObject before = counts(mode);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Http.Response placed = http.post("lab-orders/api/orders?mode=" + mode, "{\"sku\": \"" + sku + "\"}");
            assertEquals(201, placed.status(), placed::toString);
            assertEquals("PLACED", placed.json().getString("state"));
            ids.add(placed.json().getString("orderId"));
        }

        Eventually.until(
                "every order settled",
                SETTLE,
                () -> ids.stream().noneMatch(id -> state(id).equals("PLACED")));
        assertEquals(3, ids.stream().filter(id -> state(id).equals("RESERVED")).count());
        assertEquals(2, ids.stream().filter(id -> state(id).equals("REJECTED")).count());
        JsonObject after = counts(mode);
        assertEquals(5, delta(before, after, "orders"));
        assertEquals(3, delta(before, after, "reserved"));
        assertEquals(2, delta(before, after, "rejected"));
        assertConsistent(after);
    }

    @Test
    @EnabledIfSystemProperty(named = "courier.db", matches = "postgres")
    void queue_worker_crashing_between_reservation_and_ack_reserves_once() {
        String sku = scarce(5);
        http.post("api/test/faults/scenario.queue.after-reserve", "");
        JsonObject before = counts("queue");

        String id = http.post("lab-orders/api/orders?mode=queue", "{\"sku\": \"" + sku + "\"}")
                .json()
                .getString("orderId");
        Eventually.until("the reservation made", SETTLE, () -> delta(before, counts("queue"), "reserved") == 1);
        assertEquals("PLACED", state(id), "reserved but not acknowledged: the worker 'crashed' in between");
        http.post("api/test/clock/advance?seconds=31", ""); // the lease runs out: the message comes back

        Eventually.until("settled", SETTLE, () -> state(id).equals("RESERVED"));
        JsonObject after = counts("queue");
        assertEquals(1, delta(before, after, "reserved"));
        assertEquals(0, delta(before, after, "duplicated"), "the inbox kept the second delivery from reserving again");
        assertConsistent(after);
    }

    @Test
    void
            rms_inventory_failing_after_its_commit_and_before_the_direct_reply_reserves_once_and_the_redelivered_copy_replies() {
        // Once: thrown out of onMessage, as a crash there would end it.
        JsonObject before = rmsOrderReservedPast(
                "scenario.rms.before-direct-reply",
                1,
                "the first copy failed between the inventory's commit and the reply");
        JsonObject after = counts("rms");
        assertEquals(1, delta(before, after, "orders"));
        assertEquals(
                1, delta(before, after, "reserved"), "the inbox kept the broker's redelivery from reserving again");
        assertEquals(0, delta(before, after, "duplicated"));
        assertConsistent(after);
    }

    @Test
    void rms_direct_reply_retried_in_process_settles_an_order_past_the_brokers_redeliveries() {
        // More failures than the broker's 10 deliveries of a copy: thrown out of onMessage, the copy would end in
        // the dead-letter address with the order never settled (its delivery already reported consumed).
        JsonObject before = rmsOrderReservedPast(
                "scenario.rms.direct-reply", 12, "the reply's write failed 12 times before it went through");
        JsonObject after = counts("rms");
        assertEquals(1, delta(before, after, "reserved"));
        assertEquals(0, delta(before, after, "duplicated"));
        assertConsistent(after);
    }

    /**
     * Places one rms order of a scarce item with {@code point} armed to fail {@code times} times, and waits until the
     * order is reserved and every armed failure came. @return the rms counts from before the order
     */
    private JsonObject rmsOrderReservedPast(String point, int times, String failuresCame) {
        String sku = scarce(5);
        rmsSetUp();
        http.post("api/test/faults/" + point + "?times=" + times, "");
        JsonObject before = counts("rms");

        String id = http.post("lab-orders/api/orders?mode=rms", "{\"sku\": \"" + sku + "\"}")
                .json()
                .getString("orderId");

        Eventually.until("settled", SETTLE, () -> state(id).equals("RESERVED"));
        assertEquals(0, left(point), failuresCame);
        return before;
    }

    @Test
    void a_slowed_inventory_instance_delays_orders_but_loses_and_doubles_none() {
        // The inventory service's slowed instance (rms and queue), and xa's in-line inventory work in the orders
        // service.
        assertEquals(200, http.put("api/scenario/slowdown", "{\"factor\": 5}").status());
        assertEquals(
                200, http.put("lab-orders/api/xa/slowdown", "{\"factor\": 5}").status());
        try {
            assertEquals(5, http.get("api/scenario/slowdown").json().getInt("factor"));
            assertEquals(5, http.get("lab-orders/api/xa/slowdown").json().getInt("factor"));
            rmsSetUp();
            assertAcceptsAndSettles("rms", scarce(3));
            assertEquals(201, http.post("lab-orders/api/orders?mode=xa", "").status());
        } finally {
            assertEquals(
                    1,
                    http.put("api/scenario/slowdown", "{\"factor\": 1}").json().getInt("factor"));
            assertEquals(
                    1,
                    http.put("lab-orders/api/xa/slowdown", "{\"factor\": 1}")
                            .json()
                            .getInt("factor"));
        }
    }

    @Test
    @EnabledIfSystemProperty(named = "courier.db", matches = "derby")
    void queue_mode_needs_postgresql_and_says_so_writing_nothing() {
        JsonObject before = counts("queue");
        Http.Response refused = http.post("lab-orders/api/orders?mode=queue", "");
        assertEquals(501, refused.status(), refused::toString);
        assertTrue(refused.json().getString("detail").contains("PostgreSQL"), refused::toString);
        assertEquals(0, delta(before, counts("queue"), "orders"));
    }

    @Test
    void should_refuse_bad_input_with_a_problem() {
        for (Http.Response bad : List.of(
                http.post("lab-orders/api/orders?mode=carrier-pigeon", ""),
                http.post("lab-orders/api/orders?mode=xa", "{\"quantity\": 0}"),
                http.post("lab-orders/api/orders?mode=xa", "{\"sku\": \"no spaces\"}"),
                http.post("lab-orders/api/orders?mode=xa", "{\"quantity\": "),
                http.post("api/scenario/stock", "{\"sku\": \"x\", \"quantity\": -1}"),
                http.post("api/scenario/stock", "{\"quantity\": 3}"),
                http.put("api/scenario/slowdown", "{\"factor\": 0}"),
                http.put("lab-orders/api/xa/slowdown", "{\"factor\": 0}"),
                http.put("lab-orders/api/xa/slowdown", "[]"),
                http.put("api/scenario/slowdown", "{\"factor\": 101}"),
                http.put("api/scenario/slowdown", "{}"))) {
            assertEquals(400, bad.status(), bad::toString);
            assertEquals("application/problem+json", bad.contentType());
        }
        assertEquals(404, http.get("lab-orders/api/orders/nope").status());
    }

    private String scarce(int available) {
        String sku = "scarce-" + UUID.randomUUID().toString().substring(0, 8);
        assertEquals(
                200,
                http.post("api/scenario/stock", "{\"sku\": \"" + sku + "\", \"quantity\": " + available + "}")
                        .status());
        return sku;
    }

    /** The order's shipment, once XA mode's shipping service has consumed its event. */
    private JsonObject shipment(String id) {
        return Eventually.await("the shipment of order " + id, SETTLE, () -> {
            JsonObject order = http.get("lab-orders/api/orders/" + id).json();
            return order.isNull("shipment")
                    ? java.util.Optional.empty()
                    : java.util.Optional.of(order.getJsonObject("shipment"));
        });
    }

    private String state(String id) {
        return http.get("lab-orders/api/orders/" + id).json().getString("state");
    }

    private JsonObject counts(String mode) {
        return consistency().getJsonObject("modes").getJsonObject(mode);
    }

    private JsonObject consistency() {
        Http.Response response = http.get("api/scenario/consistency");
        assertEquals(200, response.status(), response::toString);
        return response.json();
    }

    private static long delta(JsonObject before, JsonObject after, String field) {
        return after.getJsonNumber(field).longValue()
                - before.getJsonNumber(field).longValue();
    }

    private void assertConsistent(JsonObject mode) {
        assertEquals(0, mode.getJsonNumber("duplicated").longValue(), mode::toString);
        assertEquals(0, mode.getJsonNumber("missing").longValue(), mode::toString);
        assertEquals(0, mode.getJsonNumber("orphaned").longValue(), mode::toString);
        assertEquals(0, consistency().getJsonNumber("negativeStock").longValue());
    }
}
