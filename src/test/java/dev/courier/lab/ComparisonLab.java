package dev.courier.lab;

import dev.courier.bench.Latencies;
import dev.courier.testing.Broker;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The comparison lab ({@code bin/postgres && mvn -Plab verify}, on PostgreSQL: the orders and Courier on one
 * server, the inventory on a second). It drives the scenario over HTTP against a Courier server it starts itself
 * (so that it can kill it), and measures:
 * <ol>
 * <li>the physical anchors ({@code pg_test_fsync}, pgbench);</li>
 * <li>load: each mode at 1, 4, 16 and 64 concurrent clients — completed orders per second (outcome committed, the
 * headline) beside accepted ones, the backlog between them over time, upstream latency, order commit → outcome
 * commit, and what each order cost (forced WAL writes per PostgreSQL server, CPU per process);</li>
 * <li>scarcity: twice as many orders as stock, per mode — XA refuses at once, the others reject later;</li>
 * <li>faults: all three modes side by side, each offered 20 orders/s (within what each sustains), so they meet
 * the same fault at the same moment, while the
 * inventory database refuses connections for 30 s, the broker is stopped for 30 s, the server is killed with
 * SIGKILL and restarted, one inventory instance is slowed 10× for 30 s.</li>
 * </ol>
 * After every run it waits for quiescence and counts lost and duplicated orders from the databases themselves,
 * never from Courier's counters. Writes {@code target/lab/report.md} with tables, PNG plots and CSV. It asserts
 * nothing about speed: the figures are for reading.
 */
class ComparisonLab {

    private static final String[] MODES = {"xa", "rms", "queue"};
    private static final int[] CONCURRENCY = {1, 4, 16, 64};
    private static final double RUN_SECONDS = Double.parseDouble(System.getProperty("lab.seconds", "8"));
    private static final Duration QUIESCENCE = Duration.ofSeconds(180);
    private static final int FAULT_CLIENTS = 4;
    /** Per client in the fault runs: 4 clients x 5/s = 20 orders/s per mode, within every mode's capacity. */
    private static final double FAULT_CLIENT_RATE = 5;

    private static final int BEFORE_FAULT_SECONDS = 10;
    private static final int FAULT_SECONDS = 30;
    private static final int MAX_AFTER_FAULT_SECONDS = 60;
    private static final int SCARCE_STOCK = 100;

    private static final LibertyProcess LIBERTY = new LibertyProcess();

    private final Http http = Http.server();
    private final long started = System.nanoTime();

    @BeforeAll
    static void startServer() throws Exception {
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
                () -> http.post("api/scenario/orders?mode=rms", "").status() == 201);
        List<LabReport.Run> runs = new ArrayList<>();
        List<LabReport.Scarcity> scarcity = new ArrayList<>();
        List<LabReport.FaultRun> faults = new ArrayList<>();
        try (LabDatabases databases = new LabDatabases()) {
            // A prepared transaction left by an earlier run holds row locks that would skew every figure.
            Eventually.until(
                    "no prepared transaction left by an earlier run (recovery at start-up ends those it "
                            + "knows; end the others, or run bin/postgres --fresh)",
                    Duration.ofSeconds(60),
                    () -> databases.preparedTransactions() == 0);
            for (String mode : MODES) {
                OrderLoad.run(http, mode, 4, "", 3); // warm-up
                for (int clients : CONCURRENCY) {
                    LabReport.Run run = load(databases, mode, clients);
                    runs.add(run);
                    progress(String.format(
                            Locale.ROOT,
                            "load %-5s x%-2d completed %6.0f/s  accepted %6.0f/s  p50 %6.1f ms  p99 %7.1f ms  "
                                    + "commit to outcome p50 %7.1f ms  lost %d  duplicated %d",
                            mode,
                            clients,
                            run.completedPerSecond(),
                            run.throughput(),
                            run.p50(),
                            run.p99(),
                            run.consistencyP50(),
                            run.lost(),
                            run.duplicated()));
                }
            }
            for (String mode : MODES) {
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
            for (Fault fault : Fault.values()) {
                faults.add(fault(databases, fault));
            }
        }
        Path report = LabReport.write(dir, anchors, runs, scarcity, faults);
        progress("report written to " + report.toAbsolutePath());
    }

    private LabReport.Run load(LabDatabases databases, String mode, int clients) throws Exception {
        Costs before = Costs.now(databases);
        OrderLoad load = OrderLoad.run(http, mode, clients, "", RUN_SECONDS);
        List<String> ids = load.acceptedIds();
        LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
        Costs costs = Costs.now(databases).perOrder(before, ids.size() + settled.unacknowledged());
        Latencies upstream = new Latencies(load.acceptedLatencies());
        Latencies consistency = new Latencies(settled.toCompletionNanos());
        return new LabReport.Run(
                mode,
                clients,
                ids.size(),
                settled.completedBetween(load.startMillis(), load.endMillis()),
                load.count(OrderLoad.Answer::failed),
                load.seconds(),
                Math.max(0, settled.lastOutcomeMillis() - load.endMillis()) / 1000.0,
                upstream.percentileMillis(50),
                upstream.percentileMillis(95),
                upstream.percentileMillis(99),
                consistency.percentileMillis(50),
                consistency.percentileMillis(95),
                consistency.percentileMillis(99),
                settled.reserved(),
                settled.rejected(),
                settled.lost(),
                settled.duplicated(),
                databases.negativeStock(),
                LabReport.Backlog.of(load.startMillis(), load.acceptedAtMillis().values(), settled.completedMillis()),
                costs);
    }

    /** Twice as many single-item orders as there is stock of a fresh item, four clients, then the outcome of each. */
    private LabReport.Scarcity scarce(LabDatabases databases, String mode) throws Exception {
        String sku = "lab-scarce-" + mode + "-" + System.currentTimeMillis() % 100_000;
        Http.Response stocked =
                http.post("api/scenario/stock", "{\"sku\": \"" + sku + "\", \"quantity\": " + SCARCE_STOCK + "}");
        if (stocked.status() != 200) {
            throw new IllegalStateException("setting stock failed: " + stocked);
        }
        OrderLoad load = new OrderLoad(http, mode, 4, "{\"sku\": \"" + sku + "\"}");
        Eventually.until(
                "orders placed",
                Duration.ofSeconds(120),
                () -> load.acceptedSoFar() + load.count(OrderLoad.Answer::refused) >= 2 * SCARCE_STOCK);
        load.stop();
        List<String> ids = load.acceptedIds();
        LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
        Latencies outcome = new Latencies(settled.toCompletionNanos());
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
                outcome.percentileMillis(50),
                outcome.percentileMillis(99));
    }

    /** The faults, each applied once while all three modes place orders side by side. */
    enum Fault {
        INVENTORY_DATABASE("inventory-db", "inventory database refuses connections for 30 s (connections cut)"),
        BROKER("broker", "Artemis broker stopped for 30 s"),
        SERVER_KILLED("kill-9", "Liberty killed with SIGKILL, restarted at once"),
        SLOW_CONSUMER("slow-consumer", "one inventory instance slowed 10x for 30 s");

        final String id;
        final String what;

        Fault(String id, String what) {
            this.id = id;
            this.what = what;
        }
    }

    private LabReport.FaultRun fault(LabDatabases databases, Fault fault) throws Exception {
        progress("fault " + fault.id + ": " + fault.what);
        List<OrderLoad> loads = new ArrayList<>();
        for (String mode : MODES) {
            loads.add(new OrderLoad(http, mode, FAULT_CLIENTS, "", FAULT_CLIENT_RATE));
        }
        OrderLoad clock = loads.get(0); // the loads started together: one timeline
        PreparedSampler prepared = new PreparedSampler(clock);
        prepared.start();
        AtomicBoolean faulted = new AtomicBoolean(true);
        Thread display = progressDisplay(fault, loads, faulted);
        Thread.sleep(BEFORE_FAULT_SECONDS * 1000L);
        long faultStart = clock.elapsedNanos();
        long faultStartMillis = System.currentTimeMillis();
        apply(databases, fault);
        long faultEnd = clock.elapsedNanos();
        long faultEndMillis = System.currentTimeMillis();
        // Go on until every mode is back to half its rate before the fault (or the limit), then 5 s more.
        long deadline = faultEnd + Duration.ofSeconds(MAX_AFTER_FAULT_SECONDS).toNanos();
        while (clock.elapsedNanos() < deadline && !loads.stream().allMatch(l -> recovered(l, faultStart, faultEnd))) {
            Thread.sleep(1000);
        }
        Thread.sleep(5000);
        for (OrderLoad load : loads) {
            load.stop();
        }
        faulted.set(false);
        display.join();
        prepared.stop();
        List<LabReport.FaultMode> modes = new ArrayList<>();
        for (OrderLoad load : loads) {
            LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
            List<OrderLoad.Answer> answers = load.answers();
            double baseline = rate(answers, 0, faultStart);
            double during = rate(answers, faultStart, faultEnd);
            long recoveredAt = recoveredAt(answers, baseline, faultEnd, clock.seconds());
            double consistentAfter = Math.max(0, settled.lastOutcomeMillis() - faultEndMillis) / 1000.0;
            LabReport.FaultMode result = new LabReport.FaultMode(
                    load.mode(),
                    load.acceptedIds().size(),
                    (int) answers.stream()
                            .filter(a -> a.failed() && a.atNanos() >= faultStart)
                            .count(),
                    baseline,
                    during,
                    recoveredAt < 0 ? Double.NaN : Math.max(0, recoveredAt - faultEnd) / 1e9,
                    consistentAfter,
                    settled.reserved(),
                    settled.unacknowledged(),
                    settled.lost(),
                    settled.duplicated());
            modes.add(result);
            progress(String.format(
                    Locale.ROOT,
                    "fault %-13s %-5s before %5.1f/s during %5.1f/s errors %4d recovered after "
                            + "%5.1f s consistent %5.1f s after the fault ended, created despite an error %d, lost %d, duplicated %d",
                    fault.id,
                    result.mode(),
                    baseline,
                    during,
                    result.errors(),
                    result.recoverSeconds(),
                    consistentAfter,
                    result.unacknowledged(),
                    result.lost(),
                    result.duplicated()));
        }
        progress(String.format(
                Locale.ROOT,
                "fault %-13s prepared (in-doubt) transactions: max %d at once, longest seen %.1f s, "
                        + "max %d locks held by them",
                fault.id,
                prepared.maxPrepared(),
                prepared.longestSeconds(),
                prepared.maxLocks()));
        return new LabReport.FaultRun(
                fault.id,
                fault.what,
                faultStart / 1e9,
                faultEnd / 1e9,
                faultStartMillis,
                modes,
                loads.stream().map(OrderLoad::answers).toList(),
                prepared.maxPrepared(),
                prepared.longestSeconds(),
                prepared.maxLocks(),
                prepared.samples(),
                databases.negativeStock());
    }

    private void apply(LabDatabases databases, Fault fault) throws Exception {
        switch (fault) {
            case INVENTORY_DATABASE -> {
                databases.refuseInventoryConnections(true);
                try {
                    Thread.sleep(FAULT_SECONDS * 1000L);
                } finally {
                    databases.refuseInventoryConnections(false);
                }
            }
            case BROKER -> {
                Broker.stop();
                try {
                    Thread.sleep(FAULT_SECONDS * 1000L);
                } finally {
                    Broker.start();
                }
            }
            case SERVER_KILLED -> {
                LIBERTY.kill();
                LIBERTY.start(); // the fault lasts as long as the restart takes
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
    }

    private void slowDown(int factor) {
        Http.Response answer = http.put("api/scenario/slowdown", "{\"factor\": " + factor + "}");
        if (answer.status() != 200) {
            throw new IllegalStateException("slowing down failed: " + answer);
        }
    }

    /** Accepted orders per second between two moments of the load's timeline. */
    private static double rate(List<OrderLoad.Answer> answers, long from, long to) {
        long accepted = answers.stream()
                .filter(a -> a.accepted() && a.atNanos() >= from && a.atNanos() < to)
                .count();
        return to > from ? accepted / ((to - from) / 1e9) : 0;
    }

    private static boolean recovered(OrderLoad load, long faultStart, long faultEnd) {
        List<OrderLoad.Answer> answers = load.answers();
        return recoveredAt(answers, rate(answers, 0, faultStart), faultEnd, load.elapsedNanos() / 1e9) >= 0;
    }

    /**
     * The first moment after the fault from which a 2-second window reaches half the rate before the fault, or
     * -1 if none did.
     */
    private static long recoveredAt(List<OrderLoad.Answer> answers, double baseline, long faultEnd, double endSeconds) {
        long window = Duration.ofSeconds(2).toNanos();
        long step = Duration.ofMillis(250).toNanos();
        for (long t = faultEnd; t + window <= (long) (endSeconds * 1e9); t += step) {
            if (rate(answers, t, t + window) >= baseline / 2) {
                return t;
            }
        }
        return -1;
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
                                "fault %-13s t=%3.0fs ",
                                fault.id,
                                loads.get(0).elapsedNanos() / 1e9));
                        for (OrderLoad load : loads) {
                            line.append(String.format(
                                    Locale.ROOT,
                                    " %s %d placed, %d failed;",
                                    load.mode(),
                                    load.acceptedSoFar(),
                                    load.failedSoFar()));
                        }
                        progress(line.toString());
                    }
                },
                "lab-progress");
        display.setDaemon(true);
        display.start();
        return display;
    }

    private void progress(String what) {
        System.out.printf(Locale.ROOT, "lab [%4.0fs] %s%n", (System.nanoTime() - started) / 1e9, what);
    }
}
