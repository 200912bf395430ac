package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.Backoff;
import dev.courier.platform.JobTurns;
import dev.courier.testing.ArmedFaults;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.SettableClock;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The transactional queue's guarantees, in the container, on the configured database. Time moves by the
 * settable clock: no test sleeps for a lease to expire.
 */
@ExtendWith(ArquillianExtension.class)
class TransactionalQueueIT {

    @Deployment
    static WebArchive deployment() {
        return CourierDeployment.war().addClass(TransactionalQueueIT.class);
    }

    @Inject
    private TransactionalQueue queue;

    @Inject
    private Queues queues;

    @Inject
    private DeadLetters dead;

    @Inject
    private QueueMessages messages;

    @Inject
    private Sweeper sweeper;

    @Inject
    private JobTurns turns;

    @Inject
    private ArmedFaults faults;

    @Inject
    @org.eclipse.microprofile.metrics.annotation.RegistryScope(
            scope = org.eclipse.microprofile.metrics.MetricRegistry.APPLICATION_SCOPE)
    private org.eclipse.microprofile.metrics.MetricRegistry registry;

    @Inject
    private SettableClock clock;

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueSettings settings;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    private jakarta.enterprise.concurrent.ManagedExecutorService executor;

    @Resource(lookup = "java:comp/UserTransaction")
    private UserTransaction transaction;

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    private QueueName name;

    @AfterEach
    void dropQueue() {
        queues.drop(name);
    }

    @BeforeEach
    void newQueue() {
        name = QueueName.of("t" + UUID.randomUUID().toString().replace("-", "").substring(0, 20));
        queues.define(new QueueSpec(
                name, Duration.ofSeconds(10), 3, new Backoff(Duration.ofSeconds(2), 2.0, Duration.ofSeconds(60))));
    }

    @Test
    void should_not_keep_a_message_whose_send_transaction_rolled_back() throws Exception {
        transaction.begin();
        queue.send(name, Payload.json("{\"n\": 1}"), SendOptions.now());
        transaction.rollback();

        assertEquals(0, queues.get(name).depth());
        assertTrue(queue.receive(name, 10).isEmpty());
    }

    @Test
    void should_count_only_the_sends_and_receives_that_commit() throws Exception {
        queue.send(name, Payload.json("{\"n\": 1}"), SendOptions.now());
        transaction.begin();
        queue.sendBatch(
                name, List.of(Outgoing.of(Payload.json("{\"n\": 2}")), Outgoing.of(Payload.json("{\"n\": 3}"))));
        assertEquals(1, queue.receive(name, 1).size(), "a message leased in the transaction");
        transaction.rollback();
        assertEquals(1, counted(QueueMeters.Event.SENT), "the rolled-back batch is not counted");
        assertEquals(0, counted(QueueMeters.Event.RECEIVED), "the rolled-back receive is not counted");

        transaction.begin();
        assertEquals(1, queue.receive(name, 10).size());
        transaction.commit();
        assertEquals(1, counted(QueueMeters.Event.RECEIVED));
    }

    @Test
    void should_neither_use_nor_keep_a_definition_whose_transaction_rolls_back() throws Exception {
        assertEquals(10, leaseSeconds(), 1.0); // the server now holds a copy of the definition

        transaction.begin();
        queues.define(new QueueSpec(name, Duration.ofSeconds(60), 3, Backoff.DEFAULT));
        assertEquals(60, leaseSeconds(), 1.0, "the transaction that changed the queue sees its change");
        transaction.rollback();

        assertEquals(10, leaseSeconds(), 1.0, "nobody sees a change that rolled back");
    }

    /** Sends a message and receives one at once: the seconds from its delivery time to the end of the lease. */
    private double leaseSeconds() {
        Sent sent = queue.send(name, Payload.json("{\"n\": 1}"), SendOptions.now());
        Delivery delivery = queue.receive(name, 1).get(0);
        return Duration.between(sent.deliverAt(), delivery.leaseExpiresAt()).toMillis() / 1000.0;
    }

    private long counted(QueueMeters.Event event) {
        org.eclipse.microprofile.metrics.Counter counter = registry.getCounters()
                .get(new org.eclipse.microprofile.metrics.MetricID(
                        event.metric(), new org.eclipse.microprofile.metrics.Tag("queue", name.value())));
        return counter == null ? 0 : counter.getCount();
    }

    @Test
    void should_deliver_a_committed_message_with_payload_headers_and_first_attempt() {
        Sent sent =
                queue.send(name, Payload.json("{\"n\": 1}"), SendOptions.now().withHeaders(Map.of("k", "v")));

        List<Delivery> received = queue.receive(name, 10);

        assertEquals(1, received.size());
        Delivery delivery = received.get(0);
        assertEquals(sent.id(), delivery.id());
        assertEquals("{\"n\": 1}", delivery.payload().text());
        assertEquals(Map.of("k", "v"), delivery.headers());
        assertEquals(1, delivery.attempt());
    }

    @Test
    void should_keep_a_scheduled_message_invisible_until_its_time() {
        queue.send(name, Payload.json("1"), SendOptions.now().after(Duration.ofDays(30)));

        assertTrue(queue.receive(name, 10).isEmpty(), "not deliverable before its time");
        clock.advance(Duration.ofDays(30).plusSeconds(1));
        assertEquals(1, queue.receive(name, 10).size(), "deliverable after its time");
    }

    @Test
    void should_not_give_a_leased_message_to_another_receiver() {
        queue.send(name, Payload.json("1"), SendOptions.now());

        assertEquals(1, queue.receive(name, 10).size());
        assertTrue(queue.receive(name, 10).isEmpty(), "leased: nobody else gets it");
        clock.advance(Duration.ofSeconds(9));
        assertTrue(queue.receive(name, 10).isEmpty(), "still leased");
    }

    @Test
    void should_redeliver_a_message_whose_lease_expired_after_the_backoff() {
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        Delivery first = queue.receive(name, 1).get(0);

        clock.advance(Duration.ofSeconds(10)); // lease over; backoff after the first failure is 1..2 s
        assertTrue(queue.receive(name, 1).isEmpty(), "not before the backoff");
        clock.advance(Duration.ofSeconds(2));
        Delivery second = queue.receive(name, 1).get(0);

        assertEquals(sent.id(), second.id());
        assertEquals(2, second.attempt());
        assertNotEquals(first.leaseToken(), second.leaseToken());
        MessageView view = messages.get(name, sent.id()).orElseThrow();
        assertEquals(1, view.history().size());
        assertEquals("EXPIRED", view.history().get(0).kind());
    }

    @Test
    void should_space_redeliveries_by_the_growing_backoff() throws Exception {
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        queue.receive(name, 1);
        clock.advance(Duration.ofSeconds(12));
        Delivery second = queue.receive(name, 1).get(0);

        // After the second failure the wait is 2 s x 2 = 4 s, jittered into [2 s, 4 s] after the lease expiry.
        Duration wait = Duration.between(second.leaseExpiresAt(), deliverAt(sent.id()));
        assertTrue(
                wait.compareTo(Duration.ofSeconds(2)) >= 0 && wait.compareTo(Duration.ofSeconds(4)) <= 0,
                "backoff after the second failure was " + wait);
    }

    @Test
    void should_jitter_the_backoff_of_each_message_of_a_batch_on_its_own() throws Exception {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(queue.send(name, Payload.json(Integer.toString(i)), SendOptions.now())
                    .id());
        }
        List<Delivery> batch = queue.receive(name, 20);
        assertEquals(20, batch.size());

        // A batch that fails together (its leases expire together) must not come back together.
        java.util.Set<Instant> returns = new java.util.HashSet<>();
        for (String id : ids) {
            returns.add(deliverAt(id));
        }
        assertTrue(returns.size() > 10, "20 messages of one batch return at " + returns.size() + " distinct times");
    }

    @Test
    void should_renew_and_release_a_message_whose_queue_lowered_max_attempts_meanwhile() throws Exception {
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        queue.receive(name, 1);
        clock.advance(Duration.ofSeconds(13));
        queue.receive(name, 1);
        clock.advance(Duration.ofSeconds(15));
        Delivery third = queue.receive(name, 1).get(0);
        assertEquals(3, third.attempt());
        queues.define(new QueueSpec(
                name, Duration.ofSeconds(10), 2, new Backoff(Duration.ofSeconds(2), 2.0, Duration.ofSeconds(60))));

        assertEquals(
                third.leaseToken(),
                queue.renewLease(third.leaseToken(), Duration.ofSeconds(5)).token());
        queue.release(third.leaseToken(), null, "giving up");
        assertEquals(
                MessageState.DEAD,
                messages.get(name, sent.id()).orElseThrow().state(),
                "past the lowered limit: dead, not delivered again");
    }

    @Test
    void should_move_a_message_to_dead_after_max_attempts_and_replay_it() {
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        for (int attempt = 1; attempt <= 3; attempt++) {
            Delivery delivery = queue.receive(name, 1).get(0);
            assertEquals(attempt, delivery.attempt());
            clock.advance(Duration.ofSeconds(80)); // past the lease and any backoff
        }
        assertTrue(queue.receive(name, 1).isEmpty(), "out of attempts: never delivered a fourth time");
        sweeper.sweep();

        MessageView corpse = dead.get(name, sent.id()).orElseThrow();
        assertEquals(MessageState.DEAD, corpse.state());
        assertEquals(3, corpse.history().size(), "every failed attempt is kept");
        assertTrue(corpse.lastError().contains("lease expired"), corpse.lastError());
        assertEquals(1, queues.get(name).dead());

        assertThrows(
                PayloadTooLargeException.class,
                () -> dead.replay(name, List.of(sent.id()), null, Payload.bytes(new byte[256 * 1024 + 1])),
                "an edited payload has the same limit as a sent one");
        assertEquals(MessageState.DEAD, dead.get(name, sent.id()).orElseThrow().state(), "nothing replayed");
        assertEquals(1, dead.replay(name, List.of(sent.id()), null, Payload.json("\"fixed\"")));
        Delivery again = queue.receive(name, 1).get(0);
        assertEquals(1, again.attempt(), "a replayed message starts its attempts afresh");
        assertEquals("\"fixed\"", again.payload().text());
    }

    @Test
    void should_count_a_release_as_an_attempt_and_redeliver_after_its_delay() {
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        Delivery first = queue.receive(name, 1).get(0);

        queue.release(first.leaseToken(), Duration.ofSeconds(30), "downstream busy");

        assertTrue(queue.receive(name, 1).isEmpty());
        clock.advance(Duration.ofSeconds(31));
        Delivery second = queue.receive(name, 1).get(0);
        assertEquals(2, second.attempt());
        MessageView view = messages.get(name, sent.id()).orElseThrow();
        assertEquals("RELEASED", view.history().get(0).kind());
        assertEquals("downstream busy", view.history().get(0).reason());
        assertThrows(StaleLeaseException.class, () -> queue.ack(first.leaseToken()), "a released lease is gone");
    }

    @Test
    void should_extend_a_renewed_lease_beyond_its_first_expiry() {
        queue.send(name, Payload.json("1"), SendOptions.now());
        Delivery delivery = queue.receive(name, 1).get(0);

        clock.advance(Duration.ofSeconds(8));
        Lease renewed = queue.renewLease(delivery.leaseToken(), Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(20));

        assertTrue(renewed.expiresAt().isAfter(delivery.leaseExpiresAt()));
        assertTrue(queue.receive(name, 1).isEmpty(), "still leased after the first expiry");
        queue.ack(delivery.leaseToken());
        assertEquals(0, queues.get(name).depth());
    }

    @Test
    void should_fail_a_second_ack_and_roll_back_its_transaction() throws Exception {
        queue.send(name, Payload.json("1"), SendOptions.now());
        Delivery delivery = queue.receive(name, 1).get(0);
        queue.ack(delivery.leaseToken());

        String business = UUID.randomUUID().toString();
        transaction.begin();
        insertBusinessRow(business);
        assertThrows(MessageGoneException.class, () -> queue.ack(delivery.leaseToken()));
        assertEquals(
                jakarta.transaction.Status.STATUS_MARKED_ROLLBACK,
                transaction.getStatus(),
                "the failed ack dooms the caller's transaction");
        transaction.rollback();
        assertEquals(0, businessRows(business));
    }

    @Test
    void should_ack_a_batch_all_or_nothing() throws Exception {
        for (int i = 0; i < 3; i++) {
            queue.send(name, Payload.json(Integer.toString(i)), SendOptions.now());
        }
        List<Delivery> received = queue.receive(name, 3);
        queue.ack(received.get(2).leaseToken());

        List<String> tokens = received.stream().map(Delivery::leaseToken).toList();
        assertThrows(MessageGoneException.class, () -> queue.ackAll(tokens), "the third was acked already");
        assertEquals(2, queues.get(name).depth(), "the failed batch acknowledged none");

        queue.ackAll(tokens.subList(0, 2));
        assertEquals(0, queues.get(name).depth());
    }

    @Test
    void should_refuse_a_stale_token_after_another_receiver_leased_the_message() {
        queue.send(name, Payload.json("1"), SendOptions.now());
        Delivery first = queue.receive(name, 1).get(0);
        clock.advance(Duration.ofSeconds(13));
        Delivery second = queue.receive(name, 1).get(0);

        assertThrows(StaleLeaseException.class, () -> queue.ack(first.leaseToken()));
        assertThrows(StaleLeaseException.class, () -> queue.renewLease(first.leaseToken(), Duration.ofSeconds(5)));
        queue.ack(second.leaseToken());
    }

    /**
     * Seed 000, the unknown commit state: a transaction writes a business row and acks; it commits, but the
     * caller is told it failed; the caller retries the whole transaction. The retry's ack fails, its transaction
     * rolls back, and the business row exists exactly once.
     */
    @Test
    void should_apply_a_retried_transaction_once_when_the_first_commit_outcome_was_lost() throws Exception {
        queue.send(name, Payload.json("{\"charge\": 42}"), SendOptions.now());
        Delivery delivery = queue.receive(name, 1).get(0);
        String order = UUID.randomUUID().toString();

        Exception lost = assertThrows(Exception.class, () -> {
            transaction.begin();
            insertBusinessRow(order);
            queue.ack(delivery.leaseToken());
            transaction.commit();
            throw new java.io.IOException("connection reset after commit"); // the reply never reached the caller
        });
        assertEquals("connection reset after commit", lost.getMessage());

        transaction.begin(); // the caller retries the whole transaction
        try {
            insertBusinessRow(order);
            assertThrows(MessageGoneException.class, () -> queue.ack(delivery.leaseToken()));
        } finally {
            transaction.rollback();
        }
        assertEquals(1, businessRows(order), "the business effect applied exactly once");
    }

    @Test
    void should_return_the_original_id_for_a_repeated_idempotency_key_within_the_window() {
        Sent first = queue.send(name, Payload.json("1"), SendOptions.now().withKey("order-7"));
        Delivery delivery = queue.receive(name, 1).get(0);
        queue.ack(delivery.leaseToken()); // the key outlives the message

        Sent again = queue.send(name, Payload.json("1"), SendOptions.now().withKey("order-7"));

        assertTrue(again.duplicate());
        assertEquals(first.id(), again.id());
        assertEquals(0, queues.get(name).depth(), "nothing was created");
        clock.advance(Duration.ofHours(24).plusSeconds(1));
        Sent later = queue.send(name, Payload.json("1"), SendOptions.now().withKey("order-7"));
        assertFalse(later.duplicate(), "after the window the key is free again");
    }

    @Test
    void should_keep_a_key_as_long_as_its_message_lives_beyond_the_window() {
        Sent first = queue.send(
                name, Payload.json("1"), SendOptions.now().withKey("late").after(Duration.ofHours(48)));
        clock.advance(Duration.ofHours(25)); // the window is over; the message is still scheduled
        sweeper.sweep();

        Sent again = queue.send(name, Payload.json("1"), SendOptions.now().withKey("late"));

        assertTrue(again.duplicate(), "the key names a message that still exists: a resend is the original");
        assertEquals(first.id(), again.id());
        assertEquals(1, queues.get(name).depth(), "nothing was created");
    }

    @Test
    void should_not_move_to_dead_a_message_whose_last_lease_still_holds() {
        QueueName once = QueueName.of(name.value() + "h");
        queues.define(new QueueSpec(once, Duration.ofSeconds(30), 1, Backoff.DEFAULT));
        try {
            Sent sent = queue.send(once, Payload.json("1"), SendOptions.now());
            Delivery last = queue.receive(once, 1).get(0);
            clock.advance(Duration.ofSeconds(20));
            sweeper.sweep();

            assertEquals(
                    MessageState.LEASED,
                    messages.get(once, sent.id()).orElseThrow().state(),
                    "out of attempts, but its lease holds: still the receiver's");
            queue.ack(last.leaseToken());
        } finally {
            queues.drop(once);
        }
    }

    @Test
    void should_sweep_on_the_server_holding_the_sweepers_turn_only() {
        assertTrue(sweeper.sweep().isPresent(), "free or ours: this server sweeps");
        assertTrue(
                turns.take(Sweeper.JOB, "another-server", Duration.ofSeconds(60))
                        .isEmpty(),
                "another server cannot take the turn while this one holds it");
        boolean taken = false;
        for (int tries = 0; tries < 3 && !taken; tries++) { // this server's timer may renew just before we try
            clock.advance(Duration.ofSeconds(16)); // past three sweep intervals: this server's lease has expired
            taken = turns.take(Sweeper.JOB, "another-server", Duration.ofSeconds(60))
                    .isPresent();
        }
        assertTrue(taken, "an expired turn passes on");

        assertTrue(sweeper.sweep().isEmpty(), "the other server holds the turn: this one does not sweep");
        clock.advance(Duration.ofSeconds(61));
        SweepRun run = sweeper.sweep().orElseThrow(() -> new AssertionError("the turn came back"));
        assertEquals(sweeper.owner(), run.owner());
        assertFalse(run.finished().isBefore(run.started()));
    }

    @Test
    void should_purge_the_same_dead_messages_from_two_callers_at_once_without_deadlock() throws Exception {
        QueueName once = QueueName.of(name.value() + "p");
        queues.define(new QueueSpec(once, Duration.ofSeconds(30), 1, Backoff.DEFAULT));
        try {
            List<Outgoing> batch = java.util.stream.IntStream.range(0, 400)
                    .mapToObj(i -> new Outgoing(Payload.json(Integer.toString(i)), SendOptions.now()))
                    .toList();
            queue.sendBatch(once, batch);
            List<String> ids = new java.util.ArrayList<>();
            for (Delivery delivery : queue.receive(once, 400)) {
                queue.release(delivery.leaseToken(), null, "poison");
                ids.add(delivery.id());
            }
            List<String> reversed = new java.util.ArrayList<>(ids);
            java.util.Collections.reverse(reversed);

            // Two callers naming the same rows in opposite orders: deleting in the order given would deadlock.
            java.util.concurrent.CompletableFuture<Integer> one =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> dead.purge(once, ids), executor);
            java.util.concurrent.CompletableFuture<Integer> other =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> dead.purge(once, reversed), executor);

            assertEquals(400, one.get() + other.get(), "every dead message purged once, neither purge failed");
            assertEquals(0, queues.get(once).dead());
        } finally {
            queues.drop(once);
        }
    }

    @Test
    void should_stop_growing_the_history_before_the_column_is_full_whatever_the_reasons() {
        QueueName many = QueueName.of(name.value() + "l");
        queues.define(new QueueSpec(many, Duration.ofSeconds(30), 200, Backoff.DEFAULT));
        try {
            Sent sent = queue.send(many, Payload.json("1"), SendOptions.now());
            String reason = "\u0001".repeat(999); // escaped into JSON, each of these takes six characters
            for (int attempt = 1; attempt <= 10; attempt++) {
                queue.release(queue.receive(many, 1).get(0).leaseToken(), Duration.ZERO, reason);
            }
            MessageView view = messages.get(many, sent.id()).orElseThrow();
            assertEquals(10, view.attempt());
            assertEquals(5, view.history().size(), "as many whole lines of ~6 000 characters as fit in 32 000");
            assertEquals(reason, view.lastError(), "the last error is always on the row");
        } finally {
            queues.drop(many);
        }
    }

    @Test
    void should_leave_a_message_as_it_was_when_the_receive_rolls_back() {
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        faults.arm(Claims.AFTER_CLAIM, 1);

        assertThrows(RuntimeException.class, () -> queue.receive(name, 1));

        MessageView view = messages.get(name, sent.id()).orElseThrow();
        assertEquals(MessageState.READY, view.state(), "the claim rolled back: not leased");
        assertEquals(0, view.attempt(), "no attempt counted");
        assertEquals(1, queue.receive(name, 1).get(0).attempt());
    }

    @Test
    void should_wait_without_a_thread_and_complete_when_a_send_commits() throws Exception {
        java.util.concurrent.CompletableFuture<List<Delivery>> waiting =
                queue.receiveAsync(name, 1, null, Duration.ofSeconds(30)).toCompletableFuture();
        assertFalse(waiting.isDone(), "nothing to receive yet: the call returned, the stage waits");

        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());

        List<Delivery> received = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(sent.id(), received.get(0).id());
    }

    @Test
    void should_stop_waiting_for_a_caller_that_gave_up_and_free_its_place() throws Exception {
        for (int i = 0; i < 4; i++) { // the test server allows 4 waiters a queue (COURIER_QUEUE_MAX_WAITERS in pom.xml)
            queue.receiveAsync(name, 1, null, Duration.ofSeconds(30))
                    .toCompletableFuture()
                    .cancel(false);
        }
        java.util.concurrent.CompletableFuture<List<Delivery>> timedOut = queue.receiveAsync(
                        name, 1, null, Duration.ofSeconds(30))
                .toCompletableFuture()
                .orTimeout(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> timedOut.get(5, java.util.concurrent.TimeUnit.SECONDS));

        List<java.util.concurrent.CompletableFuture<List<Delivery>>> live = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) { // would be refused (429) if any of the five above still waited
            live.add(queue.receiveAsync(name, 1, null, Duration.ofSeconds(30)).toCompletableFuture());
        }
        Sent sent = queue.send(name, Payload.json("1"), SendOptions.now());
        Delivery delivery = (Delivery) java.util.concurrent.CompletableFuture.anyOf(
                        live.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
                .thenApply(r -> ((List<?>) r).get(0))
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        live.forEach(waiting -> waiting.cancel(false));
        assertEquals(sent.id(), delivery.id());
        assertEquals(1, delivery.attempt(), "a receiver still there got the first attempt");
    }

    @Test
    void should_tell_how_long_the_longest_waiting_deliverable_message_has_been_due() {
        queue.send(name, Payload.json("1"), SendOptions.now().after(Duration.ofHours(1)));
        assertTrue(queues.get(name).oldestAge().isEmpty(), "a scheduled message is not waiting");

        queue.send(name, Payload.json("2"), SendOptions.now());
        clock.advance(Duration.ofSeconds(40));

        Duration age = queues.get(name).oldestAge().orElseThrow();
        assertTrue(
                age.compareTo(Duration.ofSeconds(40)) >= 0 && age.compareTo(Duration.ofSeconds(60)) < 0, age::toString);
        queue.receive(name, 1);
        assertTrue(queues.get(name).oldestAge().isEmpty(), "leased: no longer waiting");
    }

    @Test
    void should_receive_in_the_transaction_that_sent_while_others_claim_the_queue() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean claiming = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger acked = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CompletableFuture<Void> other = java.util.concurrent.CompletableFuture.runAsync(
                () -> {
                    while (claiming.get()) {
                        try {
                            for (Delivery delivery : queue.receive(name, 10)) {
                                queue.ack(delivery.leaseToken());
                                acked.incrementAndGet();
                            }
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                    }
                },
                executor);
        try {
            for (int i = 0; i < 20; i++) {
                transaction.begin();
                queue.send(name, Payload.json(Integer.toString(i)), SendOptions.now());
                // Another claimer may see this uncommitted row and wait for it; it must not make us wait.
                for (Delivery delivery : queue.receive(name, 10)) {
                    queue.ack(delivery.leaseToken());
                    acked.incrementAndGet();
                }
                transaction.commit();
            }
        } finally {
            claiming.set(false);
            other.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertEquals(List.of(), failures, "the other claimer never failed (no lock timeout, no deadlock)");
        for (Delivery delivery : queue.receive(name, 20)) {
            queue.ack(delivery.leaseToken());
            acked.incrementAndGet();
        }
        assertEquals(20, acked.get(), "every message acknowledged once");
    }

    @Test
    void should_keep_instants_an_hour_apart_when_daylight_saving_repeats_the_hour() {
        // 00:30 and 01:30 UTC on 2026-10-25 are both 02:30 in Berlin, where the test servers run (TZ in the pom).
        Instant first = Instant.parse("2026-10-25T00:30:00Z");
        Instant second = Instant.parse("2026-10-25T01:30:00Z");
        Sent a = queue.send(name, Payload.json("1"), SendOptions.now().at(first));
        Sent b = queue.send(name, Payload.json("2"), SendOptions.now().at(second));

        assertEquals(first, messages.get(name, a.id()).orElseThrow().deliverAt());
        assertEquals(second, messages.get(name, b.id()).orElseThrow().deliverAt());
    }

    @Test
    void should_end_a_page_of_large_messages_at_the_byte_budget_with_a_cursor_to_the_rest() {
        for (int i = 0; i < 20; i++) {
            queue.send(name, Payload.bytes(new byte[250_000]), SendOptions.now());
        }
        MessagePage first = messages.query(name, MessageFilter.all(), null, 100);
        assertTrue(
                first.messages().size() < 20,
                "4 MiB of 250 kB payloads: " + first.messages().size());
        assertTrue(first.next().isPresent(), "a cursor to the rest");

        MessagePage rest =
                messages.query(name, MessageFilter.all(), first.next().get(), 100);
        assertEquals(20, first.messages().size() + rest.messages().size());
        assertTrue(rest.next().isEmpty());
    }

    @Test
    void should_lease_no_more_than_the_byte_budget_in_one_receive_and_leave_the_rest_deliverable() {
        for (int i = 0; i < 20; i++) {
            queue.send(name, Payload.bytes(new byte[250_000]), SendOptions.now());
        }
        // 4 MiB: the 17th message is the one that reaches it.
        assertEquals(17, queue.receive(name, 100).size(), "the receive ends at the byte budget");
        assertEquals(3, queue.receive(name, 100).size(), "the rest, for the next receive");
        assertTrue(queue.receive(name, 100).isEmpty(), "all 20 leased");
    }

    @Test
    void should_ack_and_resend_in_one_transaction() throws Exception {
        queue.send(name, Payload.json("\"step 1\""), SendOptions.now());
        Delivery delivery = queue.receive(name, 1).get(0);

        transaction.begin();
        queue.ackAndResend(
                delivery.leaseToken(),
                name,
                Payload.json("\"step 2\""),
                SendOptions.now().after(Duration.ofMinutes(10)));
        transaction.rollback();
        assertEquals(
                1,
                messages.query(name, MessageFilter.in(MessageState.LEASED), null, 10)
                        .messages()
                        .size(),
                "rolled back: the original is still leased, no follow-up");

        queue.ackAndResend(
                delivery.leaseToken(),
                name,
                Payload.json("\"step 2\""),
                SendOptions.now().after(Duration.ofMinutes(10)));
        List<MessageView> left =
                messages.query(name, MessageFilter.all(), null, 10).messages();
        assertEquals(1, left.size());
        assertEquals(MessageState.SCHEDULED, left.get(0).state());
        assertEquals("\"step 2\"", left.get(0).payload().text());
    }

    @Test
    void should_send_a_batch_all_or_nothing() throws Exception {
        transaction.begin();
        queue.sendBatch(name, List.of(Outgoing.of(Payload.json("1")), Outgoing.of(Payload.bytes(new byte[] {1, 2}))));
        transaction.rollback();
        assertEquals(0, queues.get(name).depth());

        List<Sent> sent = queue.sendBatch(
                name, List.of(Outgoing.of(Payload.json("1")), Outgoing.of(Payload.bytes(new byte[] {1, 2}))));
        assertEquals(2, sent.size());
        assertEquals(2, queue.receive(name, 10).size());
    }

    @Test
    void should_mark_the_callers_transaction_rollback_only_when_a_call_is_refused() throws Exception {
        transaction.begin();
        try {
            queue.send(name, Payload.json("1"), SendOptions.now());
            assertThrows(
                    QueueNotFoundException.class,
                    () -> queue.send(QueueName.of("nosuchqueue"), Payload.json("2"), SendOptions.now()));
            assertEquals(jakarta.transaction.Status.STATUS_MARKED_ROLLBACK, transaction.getStatus());
        } finally {
            transaction.rollback();
        }
        assertEquals(0, queues.get(name).depth(), "the refused call took the earlier send down with it");
    }

    @Test
    void should_reject_bad_input_with_typed_errors() {
        assertThrows(InvalidQueueNameException.class, () -> QueueName.of("1starts-with-digit"));
        assertThrows(InvalidQueueNameException.class, () -> QueueName.of("x".repeat(64)));
        assertThrows(
                QueueNotFoundException.class,
                () -> queue.send(QueueName.of("nosuchqueue"), Payload.json("1"), SendOptions.now()));
        assertThrows(
                PayloadTooLargeException.class,
                () -> queue.send(name, Payload.bytes(new byte[256 * 1024 + 1]), SendOptions.now()));
        assertThrows(dev.courier.platform.ProblemException.class, () -> Payload.json("{not json"));
        assertThrows(dev.courier.platform.ProblemException.class, () -> queue.receive(name, 0));
        assertThrows(StaleLeaseException.class, () -> queue.ack("not-a-token"));
        assertEquals(0, queues.get(name).depth(), "no half-done write");
    }

    @Test
    void should_replay_all_dead_messages_spread_at_the_given_rate() {
        QueueName once = QueueName.of(name.value() + "x");
        queues.define(new QueueSpec(once, Duration.ofSeconds(10), 1, Backoff.DEFAULT));
        try {
            for (int i = 0; i < 3; i++) {
                queue.send(once, Payload.json(Integer.toString(i)), SendOptions.now());
            }
            for (Delivery delivery : queue.receive(once, 3)) {
                queue.release(delivery.leaseToken(), Duration.ZERO, "poison");
            }
            assertEquals(3, queues.get(once).dead(), "one attempt only: released means dead");

            assertEquals(3, dead.replay(once, List.of(), 2.0, null));

            List<MessageView> live =
                    messages.query(once, MessageFilter.all(), null, 10).messages();
            List<Instant> times =
                    live.stream().map(MessageView::deliverAt).sorted().toList();
            assertEquals(Duration.ofMillis(500), Duration.between(times.get(0), times.get(1)), "2 per second");
            assertEquals(Duration.ofMillis(500), Duration.between(times.get(1), times.get(2)));
            assertEquals(1, queue.receive(once, 3).size(), "only the first is due at once");
        } finally {
            queues.drop(once);
        }
    }

    @Test
    void should_purge_dead_messages_older_than_the_retention() {
        QueueName once = QueueName.of(name.value() + "r");
        queues.define(new QueueSpec(once, Duration.ofSeconds(10), 1, Backoff.DEFAULT));
        try {
            queue.send(once, Payload.json("1"), SendOptions.now());
            queue.release(queue.receive(once, 1).get(0).leaseToken(), null, "poison");
            sweeper.sweep();
            assertEquals(1, queues.get(once).dead(), "kept within the retention");

            clock.advance(Duration.ofDays(14).plusMinutes(1));
            sweeper.sweep();

            assertEquals(0, queues.get(once).dead(), "purged after courier.queue.dead-retention");
        } finally {
            queues.drop(once);
        }
    }

    @Test
    void should_query_messages_by_key_attempts_and_delivery_time() {
        Instant now = clock.instant();
        queue.send(name, Payload.json("1"), SendOptions.now().withKey("a"));
        queue.send(name, Payload.json("2"), SendOptions.now().after(Duration.ofHours(2)));
        queue.receive(name, 1);

        assertEquals(
                1,
                messages.query(name, new MessageFilter(null, null, null, null, "a"), null, 10)
                        .messages()
                        .size());
        assertEquals(
                1,
                messages.query(name, new MessageFilter(null, null, null, 1, null), null, 10)
                        .messages()
                        .size());
        assertEquals(
                1,
                messages.query(name, new MessageFilter(null, now.plus(Duration.ofHours(1)), null, null, null), null, 10)
                        .messages()
                        .size());
        assertEquals(
                1,
                messages.query(name, MessageFilter.in(MessageState.LEASED), null, 10)
                        .messages()
                        .size());
        assertEquals(
                1,
                messages.query(name, MessageFilter.in(MessageState.SCHEDULED), null, 10)
                        .messages()
                        .size());
    }

    @Test
    void should_refuse_a_queue_past_the_configured_limit() {
        List<QueueName> created = new java.util.ArrayList<>();
        try {
            int room = settings.maxQueues - queues.list().size(); // courier.queue.max-queues: the pom sets 120
            for (int i = 0; i < room; i++) {
                QueueName extra = QueueName.of(name.value() + "l" + i);
                queues.define(QueueSpec.of(extra));
                created.add(extra);
            }
            QueueName oneTooMany = QueueName.of(name.value() + "over");
            assertThrows(QueueLimitException.class, () -> queues.define(QueueSpec.of(oneTooMany)));
            assertEquals(settings.maxQueues, queues.list().size());
        } finally {
            created.forEach(queues::drop);
        }
    }

    private Instant deliverAt(String id) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT deliver_at FROM courier_message WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return dev.courier.platform.Columns.instant(rows, 1); // as Courier reads it: in UTC
            }
        }
    }

    /** This transaction's sequential and index scans of the temporary message table, so far. */
    private static long[] scans(Statement sql) throws SQLException {
        try (ResultSet scans = sql.executeQuery("SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables "
                + "WHERE relid = 'pg_temp.courier_message'::regclass")) {
            assertTrue(scans.next());
            return new long[] {scans.getLong(1), scans.getLong(2)};
        }
    }

    /**
     * PostgreSQL plans a statement on a table it believes small as a scan of the whole table, and a queue's table
     * looks small whenever consumers keep up. Between two vacuums it is not: every acknowledged or leased row
     * leaves a dead version behind, and the scan crosses them all (seen in QueueCycleBench: a claim read 1 000
     * buffers, a single acknowledgement 360). So a transaction that claims, acknowledges, renews or releases plans
     * on the queue's indexes from then on, compiling nothing just in time, and nothing outside it changes.
     * Checked on a table of the same shape, in that transaction only, holding what a drained queue holds: a few
     * rows, just analysed; then which transactions get the setting.
     */
    @Test
    void should_plan_claims_and_acknowledgements_on_their_indexes_however_small_the_table_looks() throws Exception {
        try (Connection probe = dataSource.getConnection()) {
            if (!"PostgreSQL".equals(probe.getMetaData().getDatabaseProductName())) {
                return; // PostgreSQL's planner only (an assumption in the container reports as an error)
            }
        }
        transaction.begin();
        try (Connection connection = databases.courier().planned();
                Statement sql = connection.createStatement()) {
            sql.execute("CREATE TEMP TABLE courier_message (LIKE public.courier_message INCLUDING ALL) ON COMMIT DROP");
            sql.execute("INSERT INTO courier_message (id, queue, state, deliver_at, attempt, version, "
                    + "payload_type, payload, created_at) SELECT md5(i::text), 'plans', 'READY', now(), 0, 0, "
                    + "'TEXT', '\\x00', now() FROM generate_series(1, 20) i");
            sql.execute("ANALYZE courier_message");
            // The core functions run the statements (V17); the temporary table stands in for Courier's, as pg_temp
            // comes first in the search path of a function that sets none.
            long[] before = scans(sql); // making the table and its indexes scans it: counted from here
            List<String[]> leased = new java.util.ArrayList<>();
            try (PreparedStatement claim = connection.prepareStatement(QueueSql.CLAIM_POSTGRESQL)) {
                Instant now = Instant.now();
                claim.setString(1, "plans");
                claim.setInt(2, 5);
                claim.setLong(3, 4_194_304L);
                claim.setTimestamp(4, Timestamp.from(now));
                claim.setTimestamp(5, Timestamp.from(now.plusSeconds(10)));
                claim.setInt(6, 5);
                claim.setLong(7, 1000);
                claim.setDouble(8, 2.0);
                claim.setLong(9, 300_000);
                claim.setString(10, "nonce");
                try (ResultSet rows = claim.executeQuery()) {
                    while (rows.next()) {
                        leased.add(new String[] {rows.getString(1), rows.getString(3)});
                    }
                }
            }
            assertEquals(5, leased.size());
            try (PreparedStatement ack = connection.prepareStatement(QueueSql.ACK_POSTGRESQL)) {
                ack.setString(1, "plans");
                ack.setArray(2, connection.createArrayOf("text", new String[] {leased.get(0)[0], leased.get(1)[0]}));
                ack.setArray(3, connection.createArrayOf("text", new String[] {leased.get(0)[1], leased.get(1)[1]}));
                try (ResultSet rows = ack.executeQuery()) {
                    assertTrue(rows.next());
                    assertNull(rows.getString(2), "both acknowledged");
                }
            }
            long[] after = scans(sql);
            assertEquals(0, after[0] - before[0], "sequential scans of the message table");
            assertTrue(after[1] - before[1] >= 2, "index scans: " + (after[1] - before[1]));
            // A statement with no index to use (a dropped queue's messages go so) still scans, priced at 10^10:
            // that price must not buy a just-in-time compilation on every run.
            String drop = plan(
                    connection,
                    "DELETE FROM courier_message WHERE queue = ?",
                    statement -> statement.setString(1, "plans"));
            assertTrue(drop.contains("Seq Scan"), drop);
            assertFalse(drop.contains("JIT"), drop);
        } finally {
            transaction.rollback();
        }

        // Which transactions: one that only sends (no key) plans as usual; a receive plans on indexes from then on
        // (the transaction's statements share one connection); the next transaction plans as usual again.
        transaction.begin();
        try {
            queue.send(name, Payload.json("{\"n\": 1}"), SendOptions.now());
            assertEquals("on", enableSeqscan(), "a plain send plans as usual");
            queue.send(name, Payload.json("{\"n\": 2}"), SendOptions.now().withKey("plans-" + UUID.randomUUID()));
            assertEquals("off", enableSeqscan(), "a send with a key looks its message up by id: on indexes");
        } finally {
            transaction.commit();
        }
        transaction.begin();
        try {
            assertEquals("on", enableSeqscan(), "statements before the receive plan as usual");
            assertEquals(1, queue.receive(name, 1).size());
            assertEquals("off", enableSeqscan(), "after the receive, on indexes");
        } finally {
            transaction.rollback();
        }
        transaction.begin();
        try {
            assertEquals("on", enableSeqscan(), "the setting ended with the transaction");
        } finally {
            transaction.rollback();
        }
    }

    private String enableSeqscan() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement sql = connection.createStatement();
                ResultSet setting = sql.executeQuery("SHOW enable_seqscan")) {
            setting.next();
            return setting.getString(1);
        }
    }

    private interface Binding {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static String plan(Connection connection, String statement, Binding binding) throws SQLException {
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + statement)) {
            binding.bind(explain);
            StringBuilder plan = new StringBuilder();
            try (ResultSet lines = explain.executeQuery()) {
                while (lines.next()) {
                    plan.append(lines.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    private void insertBusinessRow(String body) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO courier_probe_record (id, body, created_at) VALUES (?, ?, ?)")) {
            insert.setString(1, UUID.randomUUID().toString()); // a fresh id: the row itself is not idempotent
            insert.setString(2, body);
            insert.setTimestamp(3, Timestamp.from(clock.instant()));
            insert.executeUpdate();
        }
    }

    private long businessRows(String body) throws Exception {
        return ((Number) scalar("SELECT COUNT(*) FROM courier_probe_record WHERE body = ?", body)).longValue();
    }

    private Object scalar(String sql, String parameter) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, parameter);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getObject(1);
            }
        }
    }
}
