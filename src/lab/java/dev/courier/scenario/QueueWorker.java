package dev.courier.scenario;

import dev.courier.platform.Backoff;
import dev.courier.platform.FaultInjection;
import dev.courier.queue.Delivery;
import dev.courier.queue.QueueName;
import dev.courier.queue.QueueSpec;
import dev.courier.queue.Queues;
import dev.courier.queue.TransactionalQueue;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Queue mode, inventory side: workers receive from {@code scenario_orders}, apply each order once and ack.
 *
 * <p>Exactly once across two databases without XA: the reservation and an inbox row (order id, outcome) commit
 * together in the inventory database; then the ack and the order's outcome commit together in the orders
 * database (the queue is there, one of Courier's queue databases: one local transaction). A crash between the two leaves the message leased; when its lease runs out it is delivered again,
 * the inbox answers the recorded outcome without reserving again, and the ack completes.
 *
 * <p>Managed threads of its own, not a message-driven bean or a timer: the transactional queue is pulled (a
 * receive that waits for messages, woken at once by a committed send), not pushed through JMS, so there is no
 * destination to attach a bean to; and a timer would look at the queue only at its interval, adding up to a whole
 * interval to every order, where a waiting receive takes a message the moment it is sent. No {@code @Retry} on the
 * steps: this loop already tries again, and a step that failed leaves its message leased, so it comes back.
 */
@Singleton
@Startup
@DependsOn({"SchemaMigration", "LabSchema"})
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class QueueWorker {

    static final String AFTER_RESERVE = "scenario.queue.after-reserve";
    private static final Logger LOG = Logger.getLogger(QueueWorker.class.getName());
    private static final int WORKERS = 2;
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** The orders service's queue, in the orders database (the lab's orders service sends with the queue library). */
    static final QueueName QUEUE = QueueName.of("scenario_orders");
    /** The orders database's name among Courier's queue databases (lab-on.xml's courier.queue.databases). */
    static final String DATABASE = "lab_orders";

    @Inject
    private Queues queues;

    @Inject
    private TransactionalQueue queue;

    @Inject
    private QueueWorkerSteps steps;

    @Inject
    private FaultInjection faults;

    @Inject
    private SlowConsumer slow;

    // Threads of their own: long-running loops on the managed executor would hold the threads that serve requests.
    @Resource
    private ManagedThreadFactory threads;

    private final AtomicBoolean running = new AtomicBoolean(true);

    // Each call to Courier its own transaction: the drop must have committed before the definition looks for the
    // queue in every database (outside any transaction, where Derby would wait on the drop's locks).
    @PostConstruct
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void start() {
        // In the orders database, where the orders service sends to it with the queue library. The lab kept it in
        // Courier's own database before the orders service had one: a queue left there by an earlier run goes (its
        // orders stay behind in that database's old tables, which nothing reads any more).
        if (queues.list().stream()
                .anyMatch(q -> q.spec().name().equals(QUEUE) && !q.database().equals(DATABASE))) {
            LOG.warning("dropping " + QUEUE + " from Courier's database, where an earlier lab kept it");
            queues.drop(QUEUE);
        }
        queues.define(new QueueSpec(QUEUE, LEASE, 1000, new Backoff(Duration.ZERO, 1, Duration.ZERO)), false, DATABASE);
        for (int i = 0; i < WORKERS; i++) {
            int instance = i;
            threads.newThread(() -> work(instance)).start();
        }
    }

    @PreDestroy
    void stop() {
        running.set(false);
    }

    private void work(int instance) {
        while (running.get()) {
            try {
                List<Delivery> deliveries = queue.receive(QUEUE, 10, LEASE, Duration.ofSeconds(1));
                for (Delivery delivery : deliveries) {
                    long start = System.nanoTime();
                    handle(delivery);
                    slow.pace(Mode.QUEUE, instance, System.nanoTime() - start);
                }
            } catch (RuntimeException e) {
                // The message stays leased and comes back when its lease runs out.
                LOG.warning("queue worker: " + e);
                pause();
            }
        }
    }

    private void handle(Delivery delivery) {
        JsonObject body = delivery.payload().toJson().asJsonObject();
        Order order = new Order(body.getString("orderId"), Mode.QUEUE, body.getString("sku"), body.getInt("quantity"));
        OrderState outcome = steps.reserveOnce(order);
        faults.checkpoint(AFTER_RESERVE);
        steps.ackAndSettle(delivery.leaseToken(), order.id(), outcome);
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
