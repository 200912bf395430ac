package dev.courier.bench;

import dev.courier.platform.Backoff;
import dev.courier.queue.Delivery;
import dev.courier.queue.Outgoing;
import dev.courier.queue.Payload;
import dev.courier.queue.QueueName;
import dev.courier.queue.QueueSpec;
import dev.courier.queue.Queues;
import dev.courier.queue.TransactionalQueue;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures the transactional queue in the server: {@code workers} threads send {@code messages} messages in
 * batches of {@code batch} (one transaction per batch), then receive and acknowledge them in batches (one
 * transaction per batch). Each phase reports messages per second and the latency of one batch transaction.
 */
@ApplicationScoped
public class QueueBenchmark {

    /** Figures of one phase. */
    public record Phase(int messages, double seconds, Latencies latencies) {

        public double perSecond() {
            return messages / seconds;
        }
    }

    /** Figures of one run. */
    public record Result(int workers, int batch, Phase send, Phase receiveAndAck) {}

    /** The payload every queue benchmark sends (the REST and PGMQ rows of the test side send the same text). */
    public static final String PAYLOAD_JSON = "{\"order\": 12345, \"amount\": 99.5, \"currency\": \"EUR\"}";

    private static final Payload PAYLOAD = Payload.json(PAYLOAD_JSON);

    @Inject
    private Queues queues;

    @Inject
    private TransactionalQueue queue;

    @Inject
    private BenchConsumer consumer;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    private ManagedExecutorService executor;

    public Result run(int workers, int batch, int messages) throws Exception {
        QueueName name = QueueName.of(
                "bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
        queues.define(new QueueSpec(name, Duration.ofSeconds(60), 10, Backoff.DEFAULT));
        try {
            Payload payload = PAYLOAD;
            List<Outgoing> outgoing = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                outgoing.add(Outgoing.of(payload));
            }
            AtomicInteger toSend = new AtomicInteger(messages / batch);
            Phase send = phase(
                    workers,
                    () -> {
                        List<Long> nanos = new ArrayList<>();
                        while (toSend.getAndDecrement() > 0) {
                            long start = System.nanoTime();
                            queue.sendBatch(name, outgoing);
                            nanos.add(System.nanoTime() - start);
                        }
                        return nanos;
                    },
                    messages / batch * batch);
            AtomicInteger left = new AtomicInteger(messages / batch * batch);
            Phase receive = phase(
                    workers,
                    () -> {
                        List<Long> nanos = new ArrayList<>();
                        while (left.get() > 0) {
                            long start = System.nanoTime();
                            int got = consumer.receiveAndAck(name, batch);
                            if (got > 0) {
                                nanos.add(System.nanoTime() - start);
                                left.addAndGet(-got);
                            }
                        }
                        return nanos;
                    },
                    messages / batch * batch);
            return new Result(workers, batch, send, receive);
        } finally {
            queues.drop(name);
        }
    }

    /**
     * A worker's loop as the README recommends it, on the Java API: send a batch (one transaction), then
     * acknowledge what it received last time and receive the next batch (one transaction), until every message
     * sent went round. Latency is per cycle (both transactions).
     */
    public Phase cycle(int workers, int batch, int messages) throws Exception {
        QueueName name = QueueName.of(
                "cycle_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
        queues.define(new QueueSpec(name, Duration.ofSeconds(60), 10, Backoff.DEFAULT));
        try {
            List<Outgoing> outgoing = java.util.Collections.nCopies(batch, Outgoing.of(PAYLOAD));
            AtomicInteger toSend = new AtomicInteger(messages / batch);
            AtomicInteger left = new AtomicInteger(messages / batch * batch);
            return phase(
                    workers,
                    () -> {
                        List<Long> nanos = new ArrayList<>();
                        List<String> finished = List.of();
                        while (left.get() > 0) {
                            long start = System.nanoTime();
                            if (toSend.getAndDecrement() > 0) {
                                queue.sendBatch(name, outgoing);
                            }
                            List<Delivery> received = queue.ackAndReceive(name, finished, batch, null);
                            finished =
                                    received.stream().map(Delivery::leaseToken).toList();
                            left.addAndGet(-received.size());
                            nanos.add(System.nanoTime() - start);
                        }
                        queue.ackAll(name, finished);
                        return nanos;
                    },
                    messages / batch * batch);
        } finally {
            queues.drop(name);
        }
    }

    private Phase phase(int workers, Callable<List<Long>> work, int messages) throws Exception {
        return Workers.run(executor, workers, work, messages);
    }
}
