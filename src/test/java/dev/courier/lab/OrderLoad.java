package dev.courier.lab;

import dev.courier.testing.Http;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients placing orders in one mode over HTTP, each as fast as answers come, until stopped. Records every
 * answer with the moment it came (for per-second timelines) and its latency. A client whose request failed
 * (an error status or no answer) waits 100 ms before the next, as a real client backs off, so a dead server is
 * not counted a thousand times a second. A 409 (out of stock, XA's immediate refusal) is a refusal, not an error.
 */
final class OrderLoad {

    /** One answer: when it came (ns since the load started), how long it took, the order id (null unless 201). */
    record Answer(long atNanos, long latencyNanos, int status, String orderId) {

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

    private final Http http;
    private final String mode;
    private final String body;
    private final long interval;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final List<Thread> clients = new ArrayList<>();
    private final long start = System.nanoTime();
    private final long startMillis = System.currentTimeMillis();
    private volatile long end;
    private volatile long endMillis;

    /** Starts {@code clients} clients posting {@code body} to {@code /api/scenario/orders?mode=<mode>}, each as fast as it can. */
    OrderLoad(Http http, String mode, int clients, String body) {
        this(http, mode, clients, body, 0);
    }

    /**
     * Starts {@code clients} clients that each place at most {@code perClientPerSecond} orders a second (0: as
     * fast as answers come): an offered load that a mode can keep up with shows what a fault takes away.
     */
    OrderLoad(Http http, String mode, int clients, String body, double perClientPerSecond) {
        this.http = http;
        this.mode = mode;
        this.body = body;
        this.interval = perClientPerSecond > 0 ? (long) (1e9 / perClientPerSecond) : 0;
        for (int c = 0; c < clients; c++) {
            Thread client = new Thread(this::place, "lab-" + mode + "-" + c);
            client.setDaemon(true);
            this.clients.add(client);
            client.start();
        }
    }

    /** Runs {@code clients} clients for {@code seconds}, then stops them. */
    static OrderLoad run(Http http, String mode, int clients, String body, double seconds) throws InterruptedException {
        OrderLoad load = new OrderLoad(http, mode, clients, body);
        Thread.sleep(Math.round(seconds * 1000));
        load.stop();
        return load;
    }

    private void place() {
        long next = System.nanoTime();
        while (running.get()) {
            if (interval > 0) {
                next += interval;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    sleep(wait / 1_000_000);
                } else {
                    next = System.nanoTime(); // behind (a slow answer): no burst to catch up
                }
            }
            long begin = System.nanoTime();
            int status;
            String id = null;
            try {
                Http.Response answer = http.post("api/scenario/orders?mode=" + mode, body);
                status = answer.status();
                if (status == 201) {
                    id = answer.json().getString("orderId");
                }
            } catch (RuntimeException e) {
                status = 0; // no answer: refused connection, reset, timeout
            }
            long now = System.nanoTime();
            Answer answer = new Answer(now - start, now - begin, status, id);
            answers.add(answer);
            if (answer.accepted()) {
                accepted.incrementAndGet();
            } else if (answer.failed()) {
                failed.incrementAndGet();
                sleep(100);
            }
        }
    }

    void stop() throws InterruptedException {
        running.set(false);
        for (Thread client : clients) {
            client.join();
        }
        end = System.nanoTime();
        endMillis = System.currentTimeMillis();
    }

    /** When the load started and stopped (epoch ms): every order it placed was created in between. */
    long startMillis() {
        return startMillis;
    }

    long endMillis() {
        return endMillis;
    }

    String mode() {
        return mode;
    }

    /** Orders accepted so far, cheaply (for the progress display). */
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

    long[] acceptedLatencies() {
        return answers.stream()
                .filter(Answer::accepted)
                .mapToLong(Answer::latencyNanos)
                .toArray();
    }

    int count(java.util.function.Predicate<Answer> which) {
        return (int) answers.stream().filter(which).count();
    }

    /** Nanoseconds since the load started, to place outside events (a fault) on its timeline. */
    long elapsedNanos() {
        return System.nanoTime() - start;
    }

    double seconds() {
        return ((end == 0 ? System.nanoTime() : end) - start) / 1e9;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
