package dev.courier.testing;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;

/**
 * The benchmark of the helpers end to end (mvn -Pbench, ReliableBench): producers place orders through the
 * producer helper (order row, prepare and barrier in one transaction, the confirm after commit on the managed
 * executor), and a test MDB applies each message's effect through the consumer helper. Measures orders per
 * second from the first order to the last effect, and each message's time from its order's commit to its effect.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class HelperBench {

    @Inject
    private Orders orders;

    @Resource
    private ManagedExecutorService executor;

    /**
     * @return {"perSecond", "p50Millis", "p99Millis", "messages", "placedPerSecond", "placeP50Millis"}: applied per
     *         second and order-to-effect latency; orders placed per second and one order's transaction, producers alone
     */
    public JsonObject run(String producer, String topic, int producers, int messages) throws Exception {
        Map<String, Long> placed = new ConcurrentHashMap<>();
        java.util.Queue<Long> placing = new java.util.concurrent.ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        List<Future<?>> running = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int share = messages / producers + (p < messages % producers ? 1 : 0);
            running.add(executor.submit(() -> {
                for (int i = 0; i < share; i++) {
                    long begin = System.nanoTime();
                    String message = orders.place(producer, topic, false, Orders.Hold.NONE, 10, true)
                            .split(" ")[1];
                    long now = System.nanoTime();
                    placed.put(message, now);
                    placing.add(now - begin);
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
        long allPlaced = System.nanoTime();
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (!InboxListeners.APPLIED.keySet().containsAll(placed.keySet())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not every message applied within 5 minutes");
            }
            Thread.sleep(5);
        }
        long last = placed.keySet().stream()
                .mapToLong(InboxListeners.APPLIED::get)
                .max()
                .orElse(start);
        long[] latencies = placed.entrySet().stream()
                .mapToLong(e -> InboxListeners.APPLIED.get(e.getKey()) - e.getValue())
                .sorted()
                .toArray();
        return dev.courier.platform.Json.createObjectBuilder()
                .add("messages", placed.size())
                .add("perSecond", placed.size() / ((last - start) / 1e9))
                .add("placedPerSecond", placed.size() / ((allPlaced - start) / 1e9))
                .add(
                        "placeP50Millis",
                        percentile(
                                placing.stream()
                                        .mapToLong(Long::longValue)
                                        .sorted()
                                        .toArray(),
                                50))
                .add("p50Millis", percentile(latencies, 50))
                .add("p99Millis", percentile(latencies, 99))
                .build();
    }

    private static double percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1e6;
    }
}
