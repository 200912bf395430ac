package dev.courier.bench;

import dev.courier.platform.Json;
import dev.courier.testing.Http;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's loop over HTTP, as the README recommends it: send a batch (one request: a message, or a JSON array
 * of them), then acknowledge what it received last time and receive the next batch (one request: receive with
 * {@code ack}), until every message went round. Each worker keeps one connection ({@link KeepAliveClient}). Counts
 * the requests it made.
 */
final class RestCycle {

    private final Http http;
    private final AtomicLong requests = new AtomicLong();

    RestCycle(Http http) {
        this.http = http;
    }

    long requests() {
        return requests.get();
    }

    QueueBenchmark.Phase cycle(String queue, int workers, int batch, int messages) throws Exception {
        int total = messages / batch * batch;
        String send = batch == 1
                ? "{\"payload\": " + QueueBenchmark.PAYLOAD_JSON + "}"
                : "["
                        + String.join(
                                ", ", Collections.nCopies(batch, "{\"payload\": " + QueueBenchmark.PAYLOAD_JSON + "}"))
                        + "]";
        AtomicInteger toSend = new AtomicInteger(messages / batch);
        AtomicInteger left = new AtomicInteger(total);
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            long start = System.nanoTime();
            List<Future<List<Long>>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                running.add(pool.submit(() -> loop(queue, batch, send, toSend, left)));
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> future : running) {
                all.addAll(future.get());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new QueueBenchmark.Phase(
                    total,
                    seconds,
                    new Latencies(all.stream().mapToLong(Long::longValue).toArray()));
        } finally {
            pool.shutdownNow();
        }
    }

    private List<Long> loop(String queue, int batch, String send, AtomicInteger toSend, AtomicInteger left) {
        try (KeepAliveClient client = new KeepAliveClient(http)) {
            return loop(client, queue, batch, send, toSend, left);
        }
    }

    private List<Long> loop(
            KeepAliveClient client, String queue, int batch, String send, AtomicInteger toSend, AtomicInteger left) {
        List<Long> nanos = new ArrayList<>();
        List<String> finished = List.of();
        while (left.get() > 0) {
            long start = System.nanoTime();
            if (toSend.getAndDecrement() > 0) {
                expect(201, client.post("api/queues/" + queue + "/messages", send));
            }
            JsonArrayBuilder ack = Json.createArrayBuilder();
            finished.forEach(ack::add);
            JsonObject received = expect(
                            200,
                            client.post(
                                    "api/queues/" + queue + "/receive",
                                    Json.createObjectBuilder()
                                            .add("max", batch)
                                            .add("ack", ack)
                                            .build()
                                            .toString()))
                    .json();
            finished = received.getJsonArray("messages").getValuesAs(JsonObject.class).stream()
                    .map(m -> m.getString("leaseToken"))
                    .toList();
            left.addAndGet(-finished.size());
            nanos.add(System.nanoTime() - start);
        }
        if (!finished.isEmpty()) {
            JsonArrayBuilder tokens = Json.createArrayBuilder();
            finished.forEach(tokens::add);
            expect(
                    204,
                    client.post(
                            "api/queues/" + queue + "/ack",
                            Json.createObjectBuilder()
                                    .add("leaseTokens", tokens)
                                    .build()
                                    .toString()));
        }
        return nanos;
    }

    private Http.Response expect(int status, Http.Response response) {
        requests.incrementAndGet();
        if (response.status() != status) {
            throw new IllegalStateException("expected " + status + ": " + response);
        }
        return response;
    }
}
