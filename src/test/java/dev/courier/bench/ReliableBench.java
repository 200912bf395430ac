package dev.courier.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.Broker;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.InboxListeners;
import dev.courier.testing.ProducerStub;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reliable message service benchmark ({@code mvn -Pbench verify -Dit.includes=**}{@code /ReliableBench.java},
 * on PostgreSQL): prepare+confirm throughput and latency at 1, 4 and 16 producers through the Java API (in the
 * server) and over REST (from this JVM); the helpers end to end (orders placed through the producer helper, applied
 * by a test MDB through the consumer helper, in its local mode and its XA mode: {@code HelperBench}); the time from
 * a confirm's answer to the subscriber's consumed report
 * being recorded; and the check-back reconciler's rate on 10 000 stale pending messages while another producer
 * is down. Prints a table and writes it to {@code target/bench/reliable.md}. Asserts nothing about speed.
 */
@ExtendWith(ArquillianExtension.class)
class ReliableBench {

    private static final int[] PRODUCERS = java.util.Arrays.stream(
                    System.getProperty("reliable.bench.producers", "1,4,16").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    // At 1 producer an XA confirm takes ~20 ms: 800 keep one request under 30 s. More (-Dreliable.bench.messages)
    // for a profile that needs a longer run.
    private static final int MESSAGES = Integer.getInteger("reliable.bench.messages", 800);
    private static final int STALE = 10_000;

    private final Http http = Http.server();
    private final Map<String, Long> confirmedAt = new ConcurrentHashMap<>();
    private final Map<String, Long> consumedAt = new ConcurrentHashMap<>();
    /** How long each REST confirm took to be answered, in the run that last cleared it. */
    private final java.util.Queue<Long> confirmNanos = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void measure_the_reliable_message_service() throws Exception {
        String producer = "bench" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "bench" + UUID.randomUUID().toString().substring(0, 8);
        List<String> rows = new ArrayList<>();
        rows.add("| path | producers | messages | msg/s | p50 ms | p99 ms |");
        rows.add("|---|---|---|---|---|---|");
        try (ProducerStub stub = ProducerStub.start()) {
            assertEquals(201, stub.register(http, producer).status());
            assertEquals(
                    201,
                    http.post(
                                    "api/topics/" + topic + "/subscribers",
                                    "{\"name\": \"sink\", \"deliveryTimeoutSeconds\": 3600}")
                            .status());

            String queue = "benchq" + UUID.randomUUID().toString().substring(0, 8);
            assertEquals(
                    201,
                    http.put("api/queues/" + queue, "{\"leaseSeconds\": 60, \"maxAttempts\": 10}")
                            .status());
            java(topic, producer, 4, 400); // warm-up
            rest(topic, producer, 4, 300);
            queueCycle(4, 400);
            restSends(queue, 4, 300);
            String helpers = helperProducer();
            // Warm-up long enough for the JIT: in a first short run, the compiler threads took a third of Liberty's
            // CPU.
            for (int round = 0; round < 4; round++) { // each call within the HTTP client's timeout
                helpers(helpers, InboxListeners.LOCAL, 4, 400);
                helpers(helpers, InboxListeners.XA, 4, 200);
            }
            // helpers: the three helper rows alone; or one of them by its MDB (mdb-local, mdb-xa, in-process)
            String only = System.getProperty("reliable.bench.only", "");
            List<String> helperRows = List.of(InboxListeners.LOCAL, InboxListeners.XA, IN_PROCESS);
            if (only.equals("helpers") || helperRows.contains(only)) {
                List<String> mdbs = only.equals("helpers") ? helperRows : List.of(only);
                for (int producers : PRODUCERS) {
                    for (String mdb : mdbs) {
                        JsonObject r = helpers(helpers, mdb, producers, MESSAGES);
                        System.out.println(row(
                                "helpers → MDB " + mdb,
                                producers,
                                MESSAGES,
                                r.getJsonNumber("perSecond").doubleValue(),
                                r.getJsonNumber("p50Millis").doubleValue(),
                                r.getJsonNumber("p99Millis").doubleValue()));
                    }
                }
                return;
            }
            String confirmLine = "";
            List<String> ratios = new ArrayList<>();
            ratios.add(
                    "| producers | Java prepare+confirm / queue send+receive+ack (Java) | REST prepare+confirm / REST queue send "
                            + "| helpers → MDB local, applied / queue cycle "
                            + "| helpers in process / queue cycle (both in the server) "
                            + "| helpers → MDB local / helpers → MDB XA |");
            ratios.add("|---|---|---|---|---|---|");
            for (int producers : PRODUCERS) {
                JsonObject java = java(topic, producer, producers, MESSAGES);
                rows.add(row(
                        "Java",
                        producers,
                        MESSAGES,
                        java.getJsonNumber("perSecond").doubleValue(),
                        java.getJsonNumber("p50Millis").doubleValue(),
                        java.getJsonNumber("p99Millis").doubleValue()));
                System.out.println(rows.get(rows.size() - 1));
                confirmedAt.clear();
                confirmNanos.clear();
                double[] rest = rest(topic, producer, producers, MESSAGES);
                rows.add(row("REST", producers, MESSAGES, rest[0], rest[1], rest[2]));
                System.out.println(rows.get(rows.size() - 1));
                if (producers == 1) {
                    Latencies confirms = new Latencies(
                            confirmNanos.stream().mapToLong(Long::longValue).toArray());
                    confirmLine = String.format(
                            Locale.ROOT,
                            "Confirm answered (REST, 1 producer, the confirm call alone):"
                                    + " p50 %.2f ms, p99 %.2f ms",
                            confirms.percentileMillis(50),
                            confirms.percentileMillis(99));
                    System.out.println(confirmLine);
                }
                JsonObject cycle = queueCycle(producers, MESSAGES);
                rows.add(row(
                        "queue cycle, Java",
                        producers,
                        MESSAGES,
                        cycle.getJsonNumber("perSecond").doubleValue(),
                        cycle.getJsonNumber("p50Millis").doubleValue(),
                        cycle.getJsonNumber("p99Millis").doubleValue()));
                System.out.println(rows.get(rows.size() - 1));
                double[] sends = restSends(queue, producers, MESSAGES);
                rows.add(row("queue send, REST", producers, MESSAGES, sends[0], sends[1], sends[2]));
                System.out.println(rows.get(rows.size() - 1));
                JsonObject local = helpers(helpers, InboxListeners.LOCAL, producers, MESSAGES);
                rows.add(row(
                        "helpers → MDB local (order committed → effect applied)",
                        producers,
                        MESSAGES,
                        local.getJsonNumber("perSecond").doubleValue(),
                        local.getJsonNumber("p50Millis").doubleValue(),
                        local.getJsonNumber("p99Millis").doubleValue()));
                System.out.println(rows.get(rows.size() - 1));
                JsonObject inProcess = helpers(helpers, IN_PROCESS, producers, MESSAGES);
                rows.add(row(
                        "helpers in process → MDB local (LocalCourierApi: no HTTP)",
                        producers,
                        MESSAGES,
                        inProcess.getJsonNumber("perSecond").doubleValue(),
                        inProcess.getJsonNumber("p50Millis").doubleValue(),
                        inProcess.getJsonNumber("p99Millis").doubleValue()));
                System.out.println(rows.get(rows.size() - 1));
                JsonObject xa = helpers(helpers, InboxListeners.XA, producers, MESSAGES);
                rows.add(row(
                        "helpers → MDB XA (order committed → effect applied)",
                        producers,
                        MESSAGES,
                        xa.getJsonNumber("perSecond").doubleValue(),
                        xa.getJsonNumber("p50Millis").doubleValue(),
                        xa.getJsonNumber("p99Millis").doubleValue()));
                System.out.println(rows.get(rows.size() - 1));
                ratios.add(String.format(
                        Locale.ROOT,
                        "| %d | %.2f | %.2f | %.2f | %.2f | %.2f |",
                        producers,
                        java.getJsonNumber("perSecond").doubleValue()
                                / cycle.getJsonNumber("perSecond").doubleValue(),
                        rest[0] / sends[0],
                        local.getJsonNumber("perSecond").doubleValue()
                                / cycle.getJsonNumber("perSecond").doubleValue(),
                        inProcess.getJsonNumber("perSecond").doubleValue()
                                / cycle.getJsonNumber("perSecond").doubleValue(),
                        local.getJsonNumber("perSecond").doubleValue()
                                / xa.getJsonNumber("perSecond").doubleValue()));
            }
            http.delete("api/queues/" + queue);
            // The consumer starts only now, as no queue receiver ran beside the queue sends: the throughput rows
            // measure
            // the producer's calls (and the relay's publishing) alone, the consumer's reports are this part's.
            AtomicBoolean consuming = new AtomicBoolean(true);
            Thread consumer = new Thread(() -> consume(topic, "sink", consuming), "bench-consumer");
            consumer.start();
            // End to end on an idle system: the consumer first drains what the throughput runs left behind.
            Eventually.until(
                    "the consumer caught up",
                    Duration.ofMinutes(3),
                    () -> consumedAt.keySet().containsAll(confirmedAt.keySet()));
            Thread.sleep(2000);
            confirmedAt.clear();
            rest(topic, producer, 1, 300);
            Eventually.until(
                    "the consumer caught up",
                    Duration.ofMinutes(3),
                    () -> consumedAt.keySet().containsAll(confirmedAt.keySet()));
            long[] endToEnd = confirmedAt.entrySet().stream()
                    .mapToLong(e -> consumedAt.get(e.getKey()) - e.getValue())
                    .toArray();
            Latencies e2e = new Latencies(endToEnd);
            String e2eLine = String.format(
                    Locale.ROOT,
                    "Confirm answered → consumed report recorded (REST, %d messages from "
                            + "one producer, one consumer on the broker reporting over REST): p50 %.1f ms, p99 %.1f ms",
                    e2e.count(),
                    e2e.percentileMillis(50),
                    e2e.percentileMillis(99));
            System.out.println(e2eLine);
            consuming.set(false);
            consumer.join();

            String checkBack = checkBackRate(stub);
            System.out.println(checkBack);
            String table = String.join("\n", rows) + "\n\nRatios, same run:\n\n" + String.join("\n", ratios) + "\n\n"
                    + confirmLine + "\n\n" + e2eLine + "\n\n" + checkBack + "\n";
            System.out.println("\nReliable message service on PostgreSQL (prepare + confirm per message):\n" + table);
            Files.createDirectories(Path.of("target/bench"));
            Files.writeString(Path.of("target/bench/reliable.md"), table);
        }
    }

    /** A producer whose check-back is the test application's barrier table (the producer helper's). */
    private String helperProducer() {
        String name = "benchh" + UUID.randomUUID().toString().substring(0, 8);
        http.put("api/test/apps/" + name + "/mode/BARRIER", "");
        String base = "http://localhost:" + System.getProperty("it.http.port", "19080") + "/";
        assertEquals(
                201,
                http.post(
                                "api/producers",
                                "{\"name\": \"" + name + "\", \"checkBackUrl\": \"" + base + "api/test/apps/" + name
                                        + "/check-back\"}")
                        .status());
        return name;
    }

    /**
     * Orders through the producer helper, applied by a test MDB through the consumer helper (HelperBench); prints
     * the CPU each process spent per message meanwhile (Liberty, PostgreSQL, the broker), the cost the two cores
     * divide among themselves.
     */
    /** The helpers' rows with the calls made in process: the local mode's MDB, over LocalCourierApi. */
    private static final String IN_PROCESS = "in-process";

    private JsonObject helpers(String producer, String topic, int producers, int messages) {
        if (IN_PROCESS.equals(topic)) {
            assertEquals(204, http.put("api/test/apps/transport/local", "").status());
            try {
                return helpers(producer, InboxListeners.LOCAL, producers, messages);
            } finally {
                assertEquals(204, http.put("api/test/apps/transport/http", "").status());
            }
        }
        double liberty = ProcessCpu.liberty("courier");
        double postgres = ProcessCpu.postgres();
        double broker = ProcessCpu.broker();
        Http.Response run = http.post(
                "api/test/apps/bench/helpers?producer=" + producer + "&topic=" + topic + "&producers=" + producers
                        + "&messages=" + messages,
                "");
        assertEquals(200, run.status(), run::toString);
        JsonObject result = run.json();
        System.out.println(String.format(
                Locale.ROOT,
                "helpers → MDB %s, %d producers: CPU per message: Liberty %.2f ms,"
                        + " PostgreSQL %.2f ms, broker %.2f ms; orders placed %.0f/s, one order's transaction p50 %.2f ms",
                topic,
                producers,
                (ProcessCpu.liberty("courier") - liberty) / messages,
                (ProcessCpu.postgres() - postgres) / messages,
                (ProcessCpu.broker() - broker) / messages,
                result.getJsonNumber("placedPerSecond").doubleValue(),
                result.getJsonNumber("placeP50Millis").doubleValue()));
        return result;
    }

    private String checkBackRate(ProducerStub stub) throws Exception {
        String good = "stale" + UUID.randomUUID().toString().substring(0, 8);
        String down = "down" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "stale" + UUID.randomUUID().toString().substring(0, 8);
        assertEquals(201, stub.register(http, good).status());
        assertEquals(
                201,
                http.post(
                                "api/producers",
                                "{\"name\": \"" + down + "\", \"checkBackUrl\": \"http://127.0.0.1:9/check-back\"}")
                        .status());
        assertEquals(
                201,
                http.post("api/topics/" + topic + "/subscribers", "{\"name\": \"s\"}")
                        .status());
        post(
                "api/bench/reliable",
                "{\"topic\": \"" + topic + "\", \"producer\": \"" + good + "\", \"producers\": 4, " + "\"messages\": "
                        + STALE + ", \"confirm\": false, \"checkBackSeconds\": 3600}");
        post(
                "api/bench/reliable",
                "{\"topic\": \"" + topic + "\", \"producer\": \"" + down + "\", \"producers\": 4, "
                        + "\"messages\": 1000, \"confirm\": false, \"checkBackSeconds\": 3600}");
        assertEquals(STALE, http.get("api/producers/" + good).json().getInt("pending"));

        long start = System.nanoTime();
        assertEquals(204, http.post("api/test/clock/advance?seconds=3601", "").status());
        Eventually.until(
                "every stale message checked back",
                Duration.ofMinutes(10),
                () -> http.get("api/producers/" + good).json().getInt("pending") == 0);
        double seconds = (System.nanoTime() - start) / 1e9;
        JsonObject downStatus = http.get("api/producers/" + down).json();
        return String.format(
                Locale.ROOT,
                "Check-back reconciler: %d stale pending messages of a live producer settled "
                        + "(ROLLED_BACK → CANCELLED) in %.1f s = %.0f check-backs/s, while a producer with 1000 pending messages "
                        + "was down (its circuit then: %s, still pending: %d)",
                STALE,
                seconds,
                STALE / seconds,
                downStatus.getString("circuit"),
                downStatus.getInt("pending"));
    }

    private JsonObject java(String topic, String producer, int producers, int messages) {
        return post(
                "api/bench/reliable",
                "{\"topic\": \"" + topic + "\", \"producer\": \"" + producer + "\", \"producers\": " + producers
                        + ", \"messages\": " + messages + "}");
    }

    /** The transactional queue's send, receive and ack per message, in the server (Java API, batch 1). */
    private JsonObject queueCycle(int workers, int messages) {
        return post(
                "api/bench/queue-cycle",
                "{\"workers\": " + workers + ", \"batch\": 1, \"messages\": " + messages + "}");
    }

    /** Single queue sends over REST (one call each), on the same client as {@link #rest}. @return msg/s, p50, p99 */
    private double[] restSends(String queue, int workers, int messages) throws Exception {
        return loops(workers, messages, client -> {
            Http.Response sent = client.post("api/queues/" + queue + "/messages", "{\"payload\": " + PAYLOAD + "}");
            assertEquals(201, sent.status(), sent::toString);
        });
    }

    private static final String PAYLOAD = "{\"order\": 12345, \"amount\": 99.5, \"currency\": \"EUR\"}";

    /** REST prepare + confirm (two calls) from {@code producers} threads. @return msg/s, p50 ms, p99 ms */
    private double[] rest(String topic, String producer, int producers, int messages) throws Exception {
        return loops(producers, messages, client -> {
            Http.Response prepared = client.post(
                    "api/messages",
                    "{\"topic\": \"" + topic + "\", \"producer\": \"" + producer + "\", \"payload\": " + PAYLOAD + "}");
            assertEquals(201, prepared.status(), prepared::toString);
            String id = prepared.json().getString("id");
            long confirming = System.nanoTime();
            Http.Response confirmed = client.post("api/messages/" + id + "/confirm", "");
            confirmNanos.add(System.nanoTime() - confirming);
            assertEquals(200, confirmed.status(), confirmed::toString);
            confirmedAt.put(id, System.nanoTime());
        });
    }

    /** {@code workers} threads, each on its own kept-alive connection, run {@code step} until {@code messages} ran. */
    private double[] loops(int workers, int messages, java.util.function.Consumer<KeepAliveClient> step)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(workers);
        AtomicInteger left = new AtomicInteger(messages);
        long start = System.nanoTime();
        List<Future<List<Long>>> running = new ArrayList<>();
        for (int p = 0; p < workers; p++) {
            running.add(threads.submit(() -> {
                List<Long> nanos = new ArrayList<>();
                try (KeepAliveClient client = new KeepAliveClient(http)) {
                    while (left.getAndDecrement() > 0) {
                        long begin = System.nanoTime();
                        step.accept(client);
                        nanos.add(System.nanoTime() - begin);
                    }
                }
                return nanos;
            }));
        }
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> future : running) {
            all.addAll(future.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        threads.shutdown();
        Latencies latencies =
                new Latencies(all.stream().mapToLong(Long::longValue).toArray());
        return new double[] {messages / seconds, latencies.percentileMillis(50), latencies.percentileMillis(99)};
    }

    /** A subscriber outside Courier: one connection, reports each message consumed over REST. */
    private void consume(String topic, String subscriber, AtomicBoolean consuming) {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(
                        "tcp://127.0.0.1:" + System.getProperty("it.broker.port", "61617"));
                JMSContext context = factory.createContext(Broker.USER, Broker.PASSWORD);
                JMSConsumer consumer =
                        context.createConsumer(context.createQueue(topic + "::" + topic + "." + subscriber))) {
            while (consuming.get()) {
                Message message = consumer.receive(200);
                if (message != null) {
                    String id = message.getStringProperty("courierMessageId");
                    Http.Response consumed =
                            http.post("api/messages/" + id + "/consumed", "{\"subscriber\": \"" + subscriber + "\"}");
                    if (consumed.status() == 200) {
                        consumedAt.putIfAbsent(id, System.nanoTime());
                    }
                }
            }
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonObject post(String path, String body) {
        Http.Response response = http.post(path, body);
        assertEquals(200, response.status(), response::toString);
        return response.json();
    }

    private static String row(String path, int producers, int messages, double perSecond, double p50, double p99) {
        return String.format(
                Locale.ROOT, "| %s | %d | %d | %.0f | %.2f | %.2f |", path, producers, messages, perSecond, p50, p99);
    }
}
