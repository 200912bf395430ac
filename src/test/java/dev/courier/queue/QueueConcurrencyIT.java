package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.Backoff;
import dev.courier.testing.CourierDeployment;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Many receivers at once, on the configured database: every message is acknowledged exactly once, and no
 * message is ever leased to two receivers at the same time, while receivers "crash" (drop what they hold).
 */
@ExtendWith(ArquillianExtension.class)
class QueueConcurrencyIT {

    private static final int MESSAGES = 10_000;
    private static final int RECEIVERS = 8;
    private static final Duration LEASE = Duration.ofSeconds(1);

    @Deployment
    static WebArchive deployment() {
        return CourierDeployment.war().addClass(QueueConcurrencyIT.class);
    }

    @Inject
    private TransactionalQueue queue;

    @Inject
    private Queues queues;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    private ManagedExecutorService executor;

    private QueueName name;

    @BeforeEach
    void newQueue() {
        name = QueueName.of("c" + UUID.randomUUID().toString().replace("-", "").substring(0, 20));
        // No backoff: a dropped message comes back as soon as its lease ends; attempts never run out here.
        queues.define(new QueueSpec(name, LEASE, 1000, new Backoff(Duration.ZERO, 1.0, Duration.ZERO)));
    }

    @AfterEach
    void dropQueue() {
        queues.drop(name);
    }

    @Test
    void should_ack_every_message_exactly_once_with_eight_receivers_crashing_at_random() throws Exception {
        for (int batch = 0; batch < MESSAGES / 500; batch++) {
            List<Outgoing> messages = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                messages.add(Outgoing.of(Payload.json(Integer.toString(batch * 500 + i))));
            }
            queue.sendBatch(name, messages);
        }

        Map<String, List<Instant[]>> leases = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
        AtomicLong acked = new AtomicLong();
        AtomicLong dropped = new AtomicLong();
        AtomicLong lostRaces = new AtomicLong();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
        List<Future<?>> receivers = new ArrayList<>();
        for (int r = 0; r < RECEIVERS; r++) {
            receivers.add(executor.submit(() -> {
                while (acked.get() < MESSAGES && System.nanoTime() < deadline) {
                    for (Delivery delivery : queue.receive(name, 20, LEASE)) {
                        leases.computeIfAbsent(delivery.id(), id -> new CopyOnWriteArrayList<>())
                                .add(new Instant[] {delivery.leaseExpiresAt().minus(LEASE), delivery.leaseExpiresAt()});
                        if (ThreadLocalRandom.current().nextInt(100) < 3) {
                            dropped.incrementAndGet(); // the receiver "crashes": no ack, the lease runs out
                            continue;
                        }
                        try {
                            queue.ack(delivery.leaseToken());
                            acks.computeIfAbsent(delivery.id(), id -> new AtomicInteger())
                                    .incrementAndGet();
                            acked.incrementAndGet();
                        } catch (LeaseException e) {
                            lostRaces.incrementAndGet(); // our lease ran out and the message moved on: fine
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> receiver : receivers) {
            receiver.get(5, TimeUnit.MINUTES);
        }

        assertEquals(MESSAGES, acks.size(), "every message was acknowledged (dropped " + dropped + ")");
        acks.forEach((id, count) -> assertEquals(1, count.get(), "message " + id + " acknowledged once"));
        assertEquals(MESSAGES, acked.get());
        assertEquals(0, queues.get(name).depth(), "nothing left");
        assertTrue(dropped.get() > 0, "some receivers crashed, so redelivery was exercised");
        leases.forEach((id, intervals) -> {
            List<Instant[]> sorted = new ArrayList<>(intervals);
            sorted.sort(Comparator.comparing(i -> i[0]));
            for (int i = 1; i < sorted.size(); i++) {
                assertTrue(
                        !sorted.get(i)[0].isBefore(sorted.get(i - 1)[1]),
                        "message " + id + " was leased twice at once");
            }
        });
    }

    @Test
    void should_hand_a_waiting_receiver_a_message_sent_while_it_waits() throws Exception {
        Future<List<Delivery>> waiting = executor.submit(() -> queue.receive(name, 1, null, Duration.ofSeconds(30)));
        TimeUnit.MILLISECONDS.sleep(300); // let the receiver start waiting (ordering only, nothing is timed)

        Sent sent = queue.send(name, Payload.json("\"wake up\""), SendOptions.now());

        List<Delivery> received = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(1, received.size());
        assertEquals(sent.id(), received.get(0).id());
    }

    @Test
    void should_return_nothing_when_the_wait_ends_without_messages() throws Exception {
        assertTrue(queue.receive(name, 1, null, Duration.ofMillis(500)).isEmpty());
    }
}
