package dev.courier.bench;

import dev.courier.reliable.Prepare;
import dev.courier.reliable.ReliableMessages;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures the reliable message service through its Java API in the server: {@code producers} threads each
 * prepare and confirm messages (two local transactions per message; the relay publishes after the confirm). The
 * latency is that of prepare plus confirm. With {@code confirm} false it only prepares
 * (to lay out stale pending messages for the check-back benchmark).
 */
@ApplicationScoped
public class ReliableBenchmark {

    @Inject
    private ReliableMessages messages;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    private ManagedExecutorService executor;

    public QueueBenchmark.Phase run(
            String topic, String producer, int producers, int count, boolean confirm, Duration checkBackAfter)
            throws Exception {
        AtomicInteger left = new AtomicInteger(count);
        return Workers.run(
                executor,
                producers,
                () -> {
                    List<Long> nanos = new ArrayList<>();
                    while (left.getAndDecrement() > 0) {
                        long start = System.nanoTime();
                        String id = messages.prepare(new Prepare(
                                topic,
                                producer,
                                "{\"order\": 12345, \"amount\": 99.5, \"currency\": \"EUR\"}",
                                Map.of(),
                                checkBackAfter,
                                null));
                        if (confirm) {
                            messages.confirm(id, Optional.empty(), Optional.empty());
                        }
                        nanos.add(System.nanoTime() - start);
                    }
                    return nanos;
                },
                count);
    }
}
