package dev.courier.lab;

import dev.courier.bench.ProcessCpu;
import dev.courier.testing.Broker;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import jakarta.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The comparison lab ({@code bin/postgres --fresh && mvn -Plab verify}, on PostgreSQL: the orders and Courier on
 * one server, the inventory on a second). It drives the scenario over HTTP against a Courier server it starts
 * itself (so that it can kill it), and measures:
 * <ol>
 * <li>the physical anchors ({@code pg_test_fsync}, pgbench);</li>
 * <li>a rate ladder per mode and stock shape (one hot item; orders spread over 1,000 items): open-loop arrivals at
 * 25, 50, 100, … orders/s until the orders completed (outcome committed, the headline) fall below 90 % of those
 * offered; each point at least 30 s or 1,000 orders (bounded below by {@code lab.min.seconds}), repeated
 * {@code lab.repetitions} times; latency from each order's intended start (HdrHistogram), order commit → outcome
 * commit, what each order cost (forced WAL writes per server, CPU per process, xa's lock hold);</li>
 * <li>scarcity: twice as many orders as stock, per mode — XA refuses at once, the others reject later;</li>
 * <li>faults, all three modes side by side (each on a hot item of its own) at half the lowest rate every mode
 * sustained on the hot item: the
 * inventory database refusing connections, the inventory's server hanging (SIGSTOP), the broker killed (SIGKILL),
 * Liberty killed (SIGKILL) while a two-phase commit is prepared, one inventory instance's work slowed 10×.</li>
 * </ol>
 * After every run it waits for quiescence and counts lost, duplicated and disagreeing orders, xa's unshipped ones
 * and the stock balance from the databases themselves, never from Courier's counters. Writes
 * {@code target/lab/report.md} with tables, PNG plots and CSV. It asserts nothing about speed: the figures are for
 * reading. The short version: {@code -Dlab.seconds=3 -Dlab.min.seconds=3 -Dlab.repetitions=1
 * -Dlab.fault.seconds=10}; one fault alone, at a given rate: {@code -Dlab.fault.rate=12.5
 * -Dlab.faults=server-killed}; some modes or one shape: {@code -Dlab.modes=xa,rms -Dlab.shapes=hot}.
 */
class ComparisonLab {

    /** The modes compared (comma-separated, {@code lab.modes}); all three by default. */
    private static final String[] MODES =
            System.getProperty("lab.modes", "xa,rms,queue").split(",");
    /** The stock shapes laddered ({@code lab.shapes}: hot, spread); both by default. */
    private static final List<String> SHAPES =
            List.of(System.getProperty("lab.shapes", "hot,spread").split(","));

    private static final double FIRST_RATE = Double.parseDouble(System.getProperty("lab.first.rate", "25"));
    private static final double MAX_RATE = Double.parseDouble(System.getProperty("lab.max.rate", "1600"));
    private static final double POINT_SECONDS = Double.parseDouble(System.getProperty("lab.seconds", "30"));
    private static final double MIN_POINT_SECONDS = Double.parseDouble(System.getProperty("lab.min.seconds", "10"));
    private static final int POINT_ORDERS = 1000;
    private static final int REPETITIONS = Integer.getInteger("lab.repetitions", 3);
    /** Below this share of the offered rate completed, a mode is saturated: its ladder stops. */
    private static final double SUSTAINED = 0.9;

    private static final Duration QUIESCENCE = Duration.ofSeconds(180);
    private static final int FAULT_SECONDS = Integer.getInteger("lab.fault.seconds", 30);
    /** Set (orders/s per mode), only the faults run, at that rate: to look at one again without the ladders. */
    private static final double FAULT_RATE = Double.parseDouble(System.getProperty("lab.fault.rate", "0"));
    /** Which faults run (their ids, comma-separated); all by default. */
    private static final List<String> FAULTS = List.of(System.getProperty(
                    "lab.faults",
                    Arrays.stream(Fault.values()).map(f -> f.id).collect(java.util.stream.Collectors.joining(",")))
            .split(","));

    private static final int BEFORE_FAULT_SECONDS = 12;
    private static final int MAX_AFTER_FAULT_SECONDS = 90;
    private static final int SCARCE_STOCK = 100;
    private static final int SPREAD_ITEMS = 1000;
    private static final int STOCK = 100_000_000;

    private static final LibertyProcess LIBERTY = new LibertyProcess();
    /** How the rms mode's services reach Courier: in process, as the xa and queue modes reach their mechanism. */
    private static final String RMS_TRANSPORT = System.getProperty("lab.rms.transport", "local");
    /**
     * How the rms mode's reply reaches the order: {@code direct}, the queue mode's shape (the same reply leg in
     * both asynchronous modes), or {@code reliable}, a second reliable message (its cost, shown apart).
     */
    private static final String RMS_REPLY = System.getProperty("lab.rms.reply", "direct");

    private final Http http = Http.server();
    private final long started = System.nanoTime();
    private final String run = Long.toString(System.currentTimeMillis() % 10_000_000, 36);

    /** One item everybody orders (the lock every xa transaction waits for), or a thousand chosen at random. */
    enum Shape {
        HOT("hot", 1),
        SPREAD("spread", SPREAD_ITEMS);

        final String id;
        final int items;

        Shape(String id, int items) {
            this.id = id;
            this.items = items;
        }
    }

    @BeforeAll
    static void startServer() throws Exception {
        LIBERTY.environment("COURIER_SCENARIO_COURIER_TRANSPORT", RMS_TRANSPORT);
        LIBERTY.environment("COURIER_SCENARIO_RMS_REPLY", RMS_REPLY);
        LIBERTY.deploy();
        LIBERTY.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        LIBERTY.stop();
        LIBERTY.undeploy();
    }

    @Test
    void compare_the_three_mechanisms() throws Exception {
        Path dir = Path.of("target/lab");
        progress("measuring the physical anchors (pg_test_fsync, pgbench)");
        Anchors anchors = Anchors.measure(dir.resolve("anchors"));
        progress(String.format(
                Locale.ROOT,
                "fdatasync %.0f/s, pgbench insert %.0f tps",
                anchors.fdatasyncPerSecond(),
                anchors.pgbenchInsertTps()));
        Eventually.until(
                "the rms mode set up",
                Duration.ofSeconds(60),
                () -> http.post("lab-orders/api/orders?mode=rms", "").status() == 201);
        Map<Shape, List<String>> skus = new HashMap<>();
        for (Shape shape : Shape.values()) {
            skus.put(shape, stock(shape));
        }
        List<LabReport.Point> points = new ArrayList<>();
        List<LabReport.Balance> balances = new ArrayList<>();
        List<LabReport.Scarcity> scarcity = new ArrayList<>();
        List<LabReport.FaultRun> faults = new ArrayList<>();
        double faultRate;
        try (LabDatabases databases = new LabDatabases()) {
            // A prepared transaction left by an earlier run holds row locks that would skew every figure.
            Eventually.until(
                    "no prepared transaction left by an earlier run (recovery at start-up ends those it "
                            + "knows; end the others, or run bin/postgres --fresh)",
                    Duration.ofSeconds(60),
                    () -> databases.preparedTransactions() == 0);
            for (Shape shape : FAULT_RATE > 0 ? new Shape[0] : Shape.values()) {
                if (!SHAPES.contains(shape.id)) {
                    continue;
                }
                Supplier<String> body = body(skus.get(shape));
                for (String mode : MODES) {
                    OrderLoad.run(http, mode, 20, body, 3).stop(); // warm-up
                    ladder(databases, mode, shape, body, points);
                }
                LabReport.Balance balance = new LabReport.Balance(
                        shape.id,
                        skus.get(shape).size(),
                        databases.unbalanced(skus.get(shape), STOCK),
                        databases.orphanReservations(skus.get(shape)));
                balances.add(balance);
                progress(String.format(
                        Locale.ROOT,
                        "stock balance %s: %d items, %d where initial - reserved <> available, %d reservations "
                                + "without an order",
                        shape.id,
                        balance.items(),
                        balance.unbalanced(),
                        balance.orphans()));
            }
            for (String mode : FAULT_RATE > 0 ? new String[0] : MODES) {
                LabReport.Scarcity run = scarce(databases, mode);
                scarcity.add(run);
                progress(String.format(
                        Locale.ROOT,
                        "scarcity %-5s %d orders for %d items: refused at once %d, reserved %d, "
                                + "rejected later %d, lost %d, duplicated %d, stock left %d",
                        mode,
                        run.attempts(),
                        SCARCE_STOCK,
                        run.refused(),
                        run.reserved(),
                        run.rejected(),
                        run.lost(),
                        run.duplicated(),
                        run.stockLeft()));
            }
            // The fault runs offer each mode half the lowest rate that every mode sustained on the hot item.
            faultRate = Arrays.stream(MODES)
                            .mapToDouble(mode -> LabReport.sustained(points, mode, Shape.HOT.id))
                            .min()
                            .orElse(FIRST_RATE)
                    / 2;
            faultRate = FAULT_RATE > 0 ? FAULT_RATE : Math.max(faultRate, 5);
            progress(String.format(Locale.ROOT, "faults at %.1f orders/s per mode", faultRate));
            // Each mode its own hot item: a lock one mode's fault leaves (an in-doubt xa branch) stalls only it.
            Map<String, Supplier<String>> hot = new HashMap<>();
            for (String mode : MODES) {
                hot.put(mode, body(List.of(item("fault-" + mode, STOCK))));
            }
            for (Fault fault : Fault.values()) {
                if (!FAULTS.contains(fault.id)) {
                    continue;
                }
                faults.add(fault(databases, fault, faultRate, hot));
            }
        }
        Path report = LabReport.write(
                dir,
                new LabReport.Setting(
                        java.time.LocalDate.now().toString(),
                        RMS_TRANSPORT,
                        RMS_REPLY,
                        REPETITIONS,
                        POINT_SECONDS,
                        MIN_POINT_SECONDS,
                        faultRate,
                        FAULT_SECONDS),
                anchors,
                points,
                balances,
                scarcity,
                faults);
        progress("report written to " + report.toAbsolutePath());
    }

    /** Sets the stock of the shape's items (fresh ones: this run's name is in their sku), returns their skus. */
    private List<String> stock(Shape shape) {
        return IntStream.range(0, shape.items)
                .mapToObj(i -> item(String.format(Locale.ROOT, "%s-%04d", shape.id, i), STOCK))
                .toList();
    }

    /** A fresh item of this run ({@code lab-<run>-<name>}) with {@code quantity} in stock; its sku. */
    private String item(String name, int quantity) {
        return LabScenario.stock(http, "lab-" + run + "-" + name, quantity);
    }

    private static Supplier<String> body(List<String> skus) {
        return () -> "{\"sku\": \"" + skus.get(ThreadLocalRandom.current().nextInt(skus.size())) + "\"}";
    }

    /** Doubles the offered rate from the first until the median completed rate falls below 90 % of it. */
    private void ladder(
            LabDatabases databases, String mode, Shape shape, Supplier<String> body, List<LabReport.Point> points)
            throws Exception {
        for (double rate = FIRST_RATE; rate <= MAX_RATE; rate *= 2) {
            List<LabReport.Point> reps = new ArrayList<>();
            for (int rep = 1; rep <= REPETITIONS; rep++) {
                LabReport.Point point = point(databases, mode, shape, body, rate, rep);
                reps.add(point);
                points.add(point);
                progress(String.format(
                        Locale.ROOT,
                        "%-6s %-5s offered %6.0f/s #%d: completed %6.1f/s accepted %6.1f/s errors %d  p99 %7.1f ms  "
                                + "commit to outcome p99 %7.1f ms  lost %d duplicated %d disagreeing %d unshipped %d",
                        shape.id,
                        mode,
                        rate,
                        rep,
                        point.completedPerSecond(),
                        point.acceptedPerSecond(),
                        point.errors(),
                        point.p99(),
                        point.consistencyP99(),
                        point.lost(),
                        point.duplicated(),
                        point.disagreeing(),
                        point.unshipped()));
            }
            double completed = LabReport.median(reps, LabReport.Point::completedPerSecond);
            if (completed < SUSTAINED * rate) {
                return;
            }
        }
    }

    private LabReport.Point point(
            LabDatabases databases, String mode, Shape shape, Supplier<String> body, double rate, int rep)
            throws Exception {
        double seconds = Math.max(MIN_POINT_SECONDS, Math.min(POINT_SECONDS, POINT_ORDERS / rate));
        if ("xa".equals(mode)) {
            http.delete("lab-orders/api/xa/lock-holds");
        }
        Costs before = Costs.now(databases);
        OrderLoad load = OrderLoad.run(http, mode, rate, body, seconds);
        LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
        Costs costs = Costs.now(databases).perOrder(before, load.acceptedIds().size() + settled.unacknowledged());
        JsonObject holds =
                "xa".equals(mode) ? http.get("lab-orders/api/xa/lock-holds").json() : null;
        Histogram upstream = load.acceptedLatencies();
        Histogram consistency = histogram(settled.toCompletionNanos());
        Histogram toOutcome = histogram(intendedToOutcomeNanos(load, settled));
        return new LabReport.Point(
                mode,
                shape.id,
                rate,
                rep,
                load.seconds(),
                load.acceptedIds().size(),
                settled.completedBetween(load.startMillis(), load.endMillis()),
                load.count(OrderLoad.Answer::failed),
                Math.max(0, settled.lastOutcomeMillis() - load.endMillis()) / 1000.0,
                millis(upstream, 50),
                millis(upstream, 99),
                millis(consistency, 50),
                millis(consistency, 95),
                millis(consistency, 99),
                millis(toOutcome, 99),
                settled.lost(),
                settled.duplicated(),
                settled.disagreeing(),
                settled.unshipped(),
                settled.unacknowledged(),
                databases.negativeStock(),
                holds == null ? Double.NaN : holds.getJsonNumber("p50Ms").doubleValue(),
                holds == null ? Double.NaN : holds.getJsonNumber("p99Ms").doubleValue(),
                LabReport.Backlog.of(load.startMillis(), load.acceptedAtMillis().values(), settled.completedMillis()),
                costs);
    }

    /** Per completed order of the load: its intended start → its outcome committed, what the business waits. */
    private static long[] intendedToOutcomeNanos(OrderLoad load, LabDatabases.Settlement settled) {
        List<Long> nanos = new ArrayList<>();
        for (OrderLoad.Answer a : load.answers()) {
            Long completed = a.accepted() ? settled.completedById().get(a.orderId()) : null;
            if (completed != null) {
                long intendedMillis = load.startMillis() + a.intendedNanos() / 1_000_000;
                nanos.add(Math.max(0, completed - intendedMillis) * 1_000_000L);
            }
        }
        return nanos.stream().mapToLong(Long::longValue).toArray();
    }

    private static Histogram histogram(long[] nanos) {
        Histogram h = new Histogram(3);
        for (long n : nanos) {
            h.recordValue(Math.max(0, n));
        }
        return h;
    }

    private static double millis(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
    }

    /** Twice as many single-item orders as there is stock of a fresh item, 50 a second, then the outcome of each. */
    private LabReport.Scarcity scarce(LabDatabases databases, String mode) throws Exception {
        String sku = item("scarce-" + mode, SCARCE_STOCK);
        OrderLoad load = new OrderLoad(http, mode, 50, () -> "{\"sku\": \"" + sku + "\"}", 2 * SCARCE_STOCK);
        load.awaitLimit();
        List<String> ids = load.acceptedIds();
        LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
        Histogram outcome = histogram(settled.toCompletionNanos());
        return new LabReport.Scarcity(
                mode,
                ids.size() + load.count(OrderLoad.Answer::refused),
                ids.size(),
                load.count(OrderLoad.Answer::refused),
                load.count(OrderLoad.Answer::failed),
                settled.reserved(),
                settled.rejected(),
                settled.lost(),
                settled.duplicated(),
                databases.stock(sku),
                millis(outcome, 50),
                millis(outcome, 99));
    }

    /** The faults, each applied once while all three modes place orders side by side. */
    enum Fault {
        INVENTORY_REFUSES("inventory-refuses", "the inventory database refuses connections, open ones cut"),
        INVENTORY_HANGS("inventory-hangs", "the inventory's PostgreSQL server stopped (SIGSTOP), then SIGCONT"),
        BROKER_KILLED("broker-killed", "the broker killed (SIGKILL), started again after the fault's time"),
        SERVER_KILLED("server-killed", "Liberty killed (SIGKILL) while a transaction is prepared, restarted at once"),
        SLOW_CONSUMER("slow-consumer", "one inventory instance's work takes 10x as long");

        final String id;
        final String what;

        Fault(String id, String what) {
            this.id = id;
            this.what = what;
        }
    }

    private LabReport.FaultRun fault(
            LabDatabases databases, Fault fault, double rate, Map<String, Supplier<String>> bodies) throws Exception {
        progress("fault " + fault.id + ": " + fault.what);
        List<OrderLoad> loads = new ArrayList<>();
        for (String mode : MODES) {
            loads.add(new OrderLoad(http, mode, rate, bodies.get(mode), 0));
        }
        OrderLoad clock = loads.get(0); // the loads started together: one timeline
        PreparedSampler prepared = new PreparedSampler(clock);
        prepared.start();
        AtomicBoolean faulted = new AtomicBoolean(true);
        Thread display = progressDisplay(fault, loads, faulted);
        Thread.sleep(BEFORE_FAULT_SECONDS * 1000L);
        long faultStartMillis = System.currentTimeMillis();
        int inDoubtAtKill = apply(databases, fault, prepared);
        long faultEndMillis = System.currentTimeMillis();
        // Go on until every mode completes 90 % of its rate before the fault again and no order placed before the
        // fault's end waits for its outcome (or the limit), then 5 s more.
        long deadline = faultEndMillis + MAX_AFTER_FAULT_SECONDS * 1000L;
        while (System.currentTimeMillis() < deadline
                && !allRecovered(databases, loads, faultStartMillis, faultEndMillis)) {
            Thread.sleep(1000);
        }
        Thread.sleep(5000);
        // All arrivals stop at once: a mode whose clients queued a backlog takes a while to be answered, and the
        // other modes must not go on placing orders meanwhile.
        for (OrderLoad load : loads) {
            load.stopArrivals();
        }
        for (OrderLoad load : loads) {
            load.awaitAnswers();
        }
        faulted.set(false);
        display.join();
        prepared.stop();
        List<LabReport.FaultMode> modes = new ArrayList<>();
        for (OrderLoad load : loads) {
            LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
            long[] completed = settled.completedMillis();
            double before = completedRate(completed, load.startMillis() + 2000, faultStartMillis);
            double during = completedRate(completed, faultStartMillis, faultEndMillis);
            long recoveredAt = recoveredAt(completed, before, faultEndMillis, load.endMillis());
            double drained = drainedAfter(load, settled, faultEndMillis);
            List<OrderLoad.Answer> sinceFault = load.answers().stream()
                    .filter(a -> load.startMillis() + a.atNanos() / 1_000_000 >= faultStartMillis)
                    .toList();
            LabReport.FaultMode result = new LabReport.FaultMode(
                    load.mode(),
                    load.acceptedIds().size(),
                    (int) sinceFault.stream().filter(OrderLoad.Answer::failed).count(),
                    failures(sinceFault).toString(),
                    rate,
                    before,
                    during,
                    recoveredAt < 0 ? Double.NaN : Math.max(0, recoveredAt - faultEndMillis) / 1000.0,
                    drained,
                    settled.unacknowledged(),
                    settled.lost(),
                    settled.duplicated(),
                    settled.disagreeing(),
                    settled.unshipped(),
                    completed);
            modes.add(result);
            progress(String.format(
                    Locale.ROOT,
                    "fault %-17s %-5s completed before %5.1f/s during %5.1f/s errors %4d back to 90 %% after "
                            + "%5.1f s, no order waiting after %5.1f s, created despite an error %d, lost %d, "
                            + "duplicated %d, disagreeing %d, unshipped %d",
                    fault.id,
                    result.mode(),
                    before,
                    during,
                    result.errors(),
                    result.recoverSeconds(),
                    result.drainedSeconds(),
                    result.unacknowledged(),
                    result.lost(),
                    result.duplicated(),
                    result.disagreeing(),
                    result.unshipped()));
        }
        progress(String.format(
                Locale.ROOT,
                "fault %-17s prepared (in-doubt) transactions: max %d at once, longest seen %.1f s, "
                        + "max %d locks held by them%s",
                fault.id,
                prepared.maxPrepared(),
                prepared.longestSeconds(),
                prepared.maxLocks(),
                inDoubtAtKill >= 0 ? ", " + inDoubtAtKill + " prepared at the kill" : ""));
        return new LabReport.FaultRun(
                fault.id,
                fault.what,
                (faultStartMillis - clock.startMillis()) / 1000.0,
                (faultEndMillis - clock.startMillis()) / 1000.0,
                clock.startMillis(),
                modes,
                loads.stream().map(OrderLoad::answers).toList(),
                prepared.maxPrepared(),
                prepared.longestSeconds(),
                prepared.maxLocks(),
                inDoubtAtKill,
                prepared.samples(),
                databases.negativeStock());
    }

    /** Applies the fault; for the server kill, how many transactions were prepared when it landed (else -1). */
    private int apply(LabDatabases databases, Fault fault, PreparedSampler sampler) throws Exception {
        switch (fault) {
            case INVENTORY_REFUSES -> {
                databases.refuseInventoryConnections(true);
                try {
                    Thread.sleep(FAULT_SECONDS * 1000L);
                } finally {
                    databases.refuseInventoryConnections(false);
                }
            }
            case INVENTORY_HANGS -> {
                List<Long> server = ProcessCpu.postgresClusterPids("inventory");
                if (server.isEmpty()) {
                    throw new IllegalStateException("the inventory's PostgreSQL server is not running");
                }
                sampler.inventoryHangs(true);
                LabScenario.signal("STOP", server);
                try {
                    Thread.sleep(FAULT_SECONDS * 1000L);
                } finally {
                    LabScenario.signal("CONT", server);
                    sampler.inventoryHangs(false);
                }
            }
            case BROKER_KILLED -> {
                Broker.kill();
                try {
                    Thread.sleep(FAULT_SECONDS * 1000L);
                } finally {
                    Broker.start();
                }
            }
            case SERVER_KILLED -> {
                return killWhilePrepared(databases);
            }
            case SLOW_CONSUMER -> {
                slowDown(10);
                try {
                    Thread.sleep(FAULT_SECONDS * 1000L);
                } finally {
                    slowDown(1);
                }
            }
        }
        return -1;
    }

    /**
     * Kills Liberty while PostgreSQL holds one of its prepared transactions, and restarts it: frozen the moment one
     * is seen, so that SIGKILL lands in the in-doubt window (up to 50 tries). The fault lasts as long as the restart
     * takes. Answers how many transactions were prepared at the kill.
     */
    private int killWhilePrepared(LabDatabases databases) throws Exception {
        int prepared = LabScenario.freezeWhilePrepared(LIBERTY.process().pid(), databases::preparedNow, 50);
        progress(String.format(Locale.ROOT, "kill with %d transactions prepared", prepared));
        LIBERTY.kill();
        LIBERTY.start();
        return prepared;
    }

    /** The inventory's slowed instance: the inventory service's (rms, queue) and xa's in-line work in the orders service. */
    private void slowDown(int factor) {
        for (String path : List.of("api/scenario/slowdown", "lab-orders/api/xa/slowdown")) {
            Http.Response answer = http.put(path, "{\"factor\": " + factor + "}");
            if (answer.status() != 200) {
                throw new IllegalStateException("slowing down failed: " + answer);
            }
        }
    }

    /** During the run, from the orders database alone (the inventory's server may have hung): every mode back? */
    private static boolean allRecovered(
            LabDatabases databases, List<OrderLoad> loads, long faultStartMillis, long faultEndMillis)
            throws Exception {
        for (OrderLoad load : loads) {
            Map<String, Long> completed = databases.completedMillis(load.acceptedIds());
            long[] at = completed.values().stream()
                    .mapToLong(Long::longValue)
                    .filter(m -> m > 0)
                    .toArray();
            double before = completedRate(at, load.startMillis() + 2000, faultStartMillis);
            if (recoveredAt(at, before, faultEndMillis, System.currentTimeMillis()) < 0) {
                return false;
            }
            Map<String, Long> acceptedAt = load.acceptedAtMillis();
            boolean waiting = acceptedAt.entrySet().stream()
                    .anyMatch(e -> e.getValue() <= faultEndMillis && completed.getOrDefault(e.getKey(), 0L) == 0);
            if (waiting) {
                return false;
            }
        }
        return true;
    }

    /** Outcomes committed per second between two moments (epoch ms). */
    private static double completedRate(long[] completedMillis, long from, long to) {
        long n = Arrays.stream(completedMillis).filter(m -> m >= from && m < to).count();
        return to > from ? n / ((to - from) / 1000.0) : 0;
    }

    /**
     * The first moment after the fault from which a 2-second window completes 90 % of the rate before the fault,
     * or -1 if none did before {@code endMillis}.
     */
    private static long recoveredAt(long[] completedMillis, double before, long faultEndMillis, long endMillis) {
        for (long t = faultEndMillis; t + 2000 <= endMillis; t += 250) {
            if (completedRate(completedMillis, t, t + 2000) >= SUSTAINED * before) {
                return t;
            }
        }
        return -1;
    }

    /**
     * From the fault's end until every order accepted before it has its outcome (s); NaN if one never had it. 0
     * when none was waiting.
     */
    private static double drainedAfter(OrderLoad load, LabDatabases.Settlement settled, long faultEndMillis) {
        long last = faultEndMillis;
        for (Map.Entry<String, Long> accepted : load.acceptedAtMillis().entrySet()) {
            if (accepted.getValue() > faultEndMillis) {
                continue;
            }
            Long completed = settled.completedById().get(accepted.getKey());
            if (completed == null) {
                return Double.NaN;
            }
            last = Math.max(last, completed);
        }
        return (last - faultEndMillis) / 1000.0;
    }

    /** Prints, every five seconds of a fault run, what each mode has placed and how many requests failed. */
    private Thread progressDisplay(Fault fault, List<OrderLoad> loads, AtomicBoolean running) {
        Thread display = new Thread(
                () -> {
                    while (running.get()) {
                        try {
                            Thread.sleep(5000);
                        } catch (InterruptedException e) {
                            return;
                        }
                        StringBuilder line = new StringBuilder(String.format(
                                Locale.ROOT,
                                "fault %-17s t=%3.0fs ",
                                fault.id,
                                loads.get(0).elapsedNanos() / 1e9));
                        for (OrderLoad load : loads) {
                            line.append(String.format(
                                    Locale.ROOT,
                                    " %s %d placed, %d failed %s;",
                                    load.mode(),
                                    load.acceptedSoFar(),
                                    load.failedSoFar(),
                                    failures(load.answers())));
                        }
                        progress(line.toString());
                    }
                },
                "lab-progress");
        display.setDaemon(true);
        display.start();
        return display;
    }

    /** Failed answers by HTTP status (0: none came), e.g. {@code {503=12, 0=3}}. */
    static Map<Integer, Long> failures(List<OrderLoad.Answer> answers) {
        return answers.stream()
                .filter(OrderLoad.Answer::failed)
                .collect(java.util.stream.Collectors.groupingBy(
                        OrderLoad.Answer::status, java.util.TreeMap::new, java.util.stream.Collectors.counting()));
    }

    private void progress(String what) {
        System.out.printf(Locale.ROOT, "lab [%4.0fs] %s%n", (System.nanoTime() - started) / 1e9, what);
    }
}
