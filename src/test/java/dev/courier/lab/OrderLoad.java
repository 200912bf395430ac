package dev.courier.lab;

import dev.courier.testing.Http;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * An open-loop load: orders of one mode arrive over HTTP at a fixed rate, each at its intended moment whatever
 * the answers to the earlier ones do, until stopped (or a number of orders is reached). A slow server does not slow
 * the arrivals down (no coordinated omission): requests pile up in the client's pool, and each one's latency counts
 * from its intended start, its wait for a free client included. A 409 (out of stock, XA's immediate refusal) is a
 * refusal, not an error; no answer or any other status is an error.
 */
final class OrderLoad {

    /**
     * One answer: intended start and arrival (ns since the load started), latency from the intended start, the
     * status (0: no answer), the order id (null unless 201).
     */
    record Answer(long intendedNanos, long atNanos, int status, String orderId) {

        long latencyNanos() {
            return atNanos - intendedNanos;
        }

        boolean accepted() {
            return status == 201;
        }

        boolean refused() {
            return status == 409;
        }

        boolean failed() {
            return !accepted() && !refused();
        }
    }

    /** More than any rate the lab offers needs while the server answers; during a hang, arrivals queue behind them. */
    private static final int CLIENT_THREADS = 256;

    private final Http http;
    private final String mode;
    private final Supplier<String> body;
    private final double rate;
    private final int limit;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS, r -> {
        Thread t = new Thread(r, "lab-client");
        t.setDaemon(true);
        return t;
    });
    private final Thread arrivals;
    private final long start = System.nanoTime();
    private final long startMillis = System.currentTimeMillis();
    private volatile long end;
    private volatile long endMillis;

    /**
     * Starts {@code rate} orders a second of {@code mode}, each with a body from {@code body}, until stopped or
     * {@code limit} orders were sent (0: no limit).
     */
    OrderLoad(Http http, String mode, double rate, Supplier<String> body, int limit) {
        if (rate <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + rate);
        }
        this.http = http;
        this.mode = mode;
        this.body = body;
        this.rate = rate;
        this.limit = limit;
        this.arrivals = new Thread(this::arrive, "lab-arrivals-" + mode);
        arrivals.setDaemon(true);
        arrivals.start();
    }

    /** Offers {@code rate} orders a second for {@code seconds}, then stops and waits for every answer. */
    static OrderLoad run(Http http, String mode, double rate, Supplier<String> body, double seconds)
            throws InterruptedException {
        OrderLoad load = new OrderLoad(http, mode, rate, body, 0);
        Thread.sleep(Math.round(seconds * 1000));
        load.stop();
        return load;
    }

    private void arrive() {
        long interval = (long) (1e9 / rate);
        for (long i = 0; running.get() && (limit == 0 || i < limit); i++) {
            long intended = i * interval;
            long wait = intended - (System.nanoTime() - start);
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            String payload = body.get();
            clients.execute(() -> place(intended, payload));
        }
    }

    private void place(long intended, String payload) {
        int status;
        String id = null;
        try {
            Http.Response answer = http.post("lab-orders/api/orders?mode=" + mode, payload);
            status = answer.status();
            if (status == 201) {
                id = answer.json().getString("orderId");
            }
        } catch (RuntimeException e) {
            status = 0; // no answer: refused connection, reset, timeout
        }
        Answer answer = new Answer(intended, System.nanoTime() - start, status, id);
        answers.add(answer);
        if (answer.accepted()) {
            accepted.incrementAndGet();
        } else if (answer.failed()) {
            failed.incrementAndGet();
        }
    }

    /** Stops the arrivals and waits for the answers of every order already sent (at most 5 minutes). */
    void stop() throws InterruptedException {
        stopArrivals();
        awaitAnswers();
    }

    /** Stops the arrivals: no order is sent after this returns (those queued for a client thread still are). */
    void stopArrivals() throws InterruptedException {
        running.set(false);
        arrivals.interrupt();
        arrivals.join();
        end = System.nanoTime();
        endMillis = System.currentTimeMillis();
    }

    /** Waits for the answers of every order sent, after {@link #stopArrivals()} (at most 5 minutes). */
    void awaitAnswers() throws InterruptedException {
        clients.shutdown();
        if (!clients.awaitTermination(5, TimeUnit.MINUTES)) {
            clients.shutdownNow();
        }
    }

    /** Waits until the limit given at the start is reached and answered. */
    void awaitLimit() throws InterruptedException {
        arrivals.join();
        stop();
    }

    double rate() {
        return rate;
    }

    /** When the arrivals started and stopped (epoch ms): every order of the load was created after the first. */
    long startMillis() {
        return startMillis;
    }

    long endMillis() {
        return endMillis;
    }

    String mode() {
        return mode;
    }

    int acceptedSoFar() {
        return accepted.get();
    }

    int failedSoFar() {
        return failed.get();
    }

    List<Answer> answers() {
        return List.copyOf(answers);
    }

    List<String> acceptedIds() {
        return answers.stream().filter(Answer::accepted).map(Answer::orderId).toList();
    }

    /**
     * When each accepted order's 201 came (epoch ms): a clock read after the order's transaction committed, the
     * order's commit as the lab can see it (its row's own commit timestamp is replaced when the outcome updates it).
     */
    Map<String, Long> acceptedAtMillis() {
        Map<String, Long> at = new HashMap<>();
        for (Answer a : answers) {
            if (a.accepted()) {
                at.put(a.orderId(), startMillis + a.atNanos() / 1_000_000);
            }
        }
        return at;
    }

    /** Latency from the intended start of the accepted orders. */
    Histogram acceptedLatencies() {
        Histogram latencies = new Histogram(3);
        answers.stream().filter(Answer::accepted).forEach(a -> latencies.recordValue(Math.max(1, a.latencyNanos())));
        return latencies;
    }

    int count(Predicate<Answer> which) {
        return (int) answers.stream().filter(which).count();
    }

    /** Nanoseconds since the load started, to place outside events (a fault) on its timeline. */
    long elapsedNanos() {
        return System.nanoTime() - start;
    }

    /** How long the arrivals ran. */
    double seconds() {
        return ((end == 0 ? System.nanoTime() : end) - start) / 1e9;
    }
}
