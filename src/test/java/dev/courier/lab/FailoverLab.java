package dev.courier.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Broker;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import dev.courier.testing.Metrics;
import dev.courier.testing.Postgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Courier's dependencies fail over under load (the failover profile: {@code mvn -Pfailover verify}, issue 27). The
 * demo business places orders in all three modes side by side (xa: an order and its {@code OrderPlaced} event in one
 * two-phase commit, the event consumed by an MDB that books a shipment; rms: the producer helper's prepare, commit
 * and confirm, the relay, the inventory's and the orders' MDBs with their inboxes; queue: sends and receives with
 * keys), a process is killed with SIGKILL and its standby takes over, then the killed one comes back. Every order
 * is then counted from the databases: lost, duplicated, disagreeing with the inventory and (xa) unshipped must be
 * 0 in every mode. Each test prints, per mode and per move, the errors clients saw and the time without service,
 * and writes them to {@code target/failover/<test>.md}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverLab {

    private static final String[] MODES = {"xa", "rms", "queue"};
    private static final double RATE = Double.parseDouble(System.getProperty("failover.rate", "15"));
    private static final int PHASE_SECONDS = Integer.getInteger("failover.phase.seconds", 20);
    private static final Duration QUIESCENCE = Duration.ofSeconds(180);
    private static final int STOCK = 100_000_000;

    private static final LibertyProcess LIBERTY = new LibertyProcess();

    private final Http http = Http.server();
    private final long started = System.nanoTime();
    private final String run = Long.toString(System.currentTimeMillis() % 10_000_000, 36);

    /** A step of a failover: what is done to which process. */
    private record Step(String what, Action action) {}

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** A step as it happened: when it began and when it was done (epoch ms). */
    private record Move(String what, long fromMillis, long toMillis) {}

    @BeforeAll
    static void startServer() throws Exception {
        LIBERTY.environment("COURIER_SCENARIO_COURIER_TRANSPORT", "local");
        LIBERTY.deploy();
        LIBERTY.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        LIBERTY.stop();
        LIBERTY.undeploy();
    }

    @Test
    @Order(1)
    void nothing_is_lost_or_done_twice_when_the_primary_broker_dies_and_when_it_comes_back() throws Exception {
        failover(
                "broker",
                List.of(
                        new Step("primary broker killed, the backup serves", () -> Broker.pair("kill", "primary")),
                        new Step("primary broker started, takes over again", () -> Broker.pair("start"))));
    }

    @Test
    @Order(2)
    void nothing_is_lost_or_done_twice_when_the_primary_database_dies_and_its_standby_is_promoted() throws Exception {
        int[] inDoubt = {0};
        failover(
                "database",
                List.of(
                        new Step(
                                "primary database killed while it holds prepared transactions, the standby promoted "
                                        + "2 s later",
                                () -> {
                                    // Liberty frozen between a prepare and its commit: the kill lands in the window.
                                    inDoubt[0] = freezeServerWhilePrepared();
                                    try {
                                        postgresPair("kill");
                                    } finally {
                                        LabScenario.signal(
                                                "CONT",
                                                List.of(LIBERTY.process().pid()));
                                    }
                                    Thread.sleep(2000); // a failover tool's detection, at its quickest
                                    postgresPair("promote");
                                }),
                        new Step("old primary rejoins as the standby", () -> postgresPair("rejoin"))));
        progress(inDoubt[0] + " transactions were prepared on the primary when it was killed");
        assertTrue(inDoubt[0] > 0, "no transaction was in doubt at the kill");
        // Liberty's recovery commits them on the promoted node (the orders they belong to settled above).
        Eventually.until(
                "every prepared transaction resolved on both servers",
                Duration.ofSeconds(120),
                () -> Postgres.preparedTransactions() == 0);
    }

    @Test
    @Order(4)
    void the_database_pair_never_makes_a_second_primary() throws Exception {
        String primary = pairNode("primary");
        String standby = primary.equals("a") ? "b" : "a";
        // A failover tool fences the old primary before it promotes: promote refuses while a primary runs.
        assertEquals(1, pair("promote").exit(), "promoted a standby while the primary runs");
        assertEquals(primary, pairNode("primary"));
        assertEquals(standby, pairNode("standby"));

        postgresPair("kill");
        postgresPair("promote");
        assertEquals(standby, pairNode("primary"));
        // The old primary, started again, would be a second primary: start leaves it stopped (and fails, as the new
        // primary has no synchronous standby) until rejoin makes it the standby.
        PairRun start = pair("start");
        assertTrue(start.exit() != 0, start::output);
        assertTrue(
                start.output().contains("node " + primary + " was a primary before node " + standby + " took over"),
                start::output);
        assertTrue(pair("status").output().contains("node " + primary + " stopped"));
        postgresPair("rejoin");
        assertEquals(standby, pairNode("primary"));
        assertEquals(primary, pairNode("standby"));
    }

    private record PairRun(int exit, String output) {}

    private static PairRun pair(String command) throws Exception {
        // Into a file, not a pipe: a process the script leaves running cannot hold the read open past the timeout.
        Path output = Files.createTempFile("postgres-pair", ".log");
        try {
            Process p = new ProcessBuilder("bash", "bin/postgres-pair", command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "bin/postgres-pair " + command + " did not end: " + Files.readString(output));
            }
            return new PairRun(p.exitValue(), Files.readString(output));
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /** The node (a or b) that {@code bin/postgres-pair status} names in {@code role} (primary, standby). */
    private static String pairNode(String role) throws Exception {
        String status = pair("status").output();
        for (String node : List.of("a", "b")) {
            if (status.contains("node " + node + " " + role)) {
                return node;
            }
        }
        throw new IllegalStateException("no " + role + " in: " + status);
    }

    /** Liberty frozen at a moment the primary holds one of its prepared transactions (up to 100 tries). */
    private static int freezeServerWhilePrepared() throws Exception {
        try (Connection primary = Postgres.courier();
                PreparedStatement count = primary.prepareStatement("SELECT COUNT(*) FROM pg_prepared_xacts")) {
            return LabScenario.freezeWhilePrepared(LIBERTY.process().pid(), () -> prepared(count), 100);
        }
    }

    private static int prepared(PreparedStatement count) throws SQLException {
        try (ResultSet rows = count.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }

    @Test
    @Order(3)
    void nothing_is_lost_or_done_twice_when_one_of_two_servers_is_killed_and_the_other_takes_its_work()
            throws Exception {
        // Clients call the first server; the second shares the work behind them: its relay publishes confirmed
        // messages, its MDBs consume the rms mode's orders and replies, its queue workers lease the queue mode's.
        LibertyProcess second = LibertyProcess.second().environment("COURIER_SCENARIO_COURIER_TRANSPORT", "local");
        second.deploy();
        second.start();
        try {
            failover(
                    "server",
                    List.of(
                            new Step(
                                    "second server frozen (SIGSTOP) 3 s, then killed (SIGKILL); the first takes what it held",
                                    () -> {
                                        // Only a server that had a share of the work leaves work behind.
                                        String text = new Metrics(second.management()).scrape();
                                        double consumed = sum(text, "courier_subscriber_consume_latency_seconds_count");
                                        double leased = sum(text, "courier_queue_received_total");
                                        progress(String.format(
                                                Locale.ROOT,
                                                "the second server had committed %.0f rms deliveries and leased "
                                                        + "%.0f queue messages",
                                                consumed,
                                                leased));
                                        assertTrue(consumed > 0 && leased > 0, "the second server took no work");
                                        // Frozen first, as a server in a long pause: the broker goes on handing it its
                                        // share of the deliveries, its leases and locks stay taken; then it dies with
                                        // them.
                                        LabScenario.signal(
                                                "STOP", List.of(second.process().pid()));
                                        Thread.sleep(3000);
                                        second.kill();
                                    }),
                            new Step("second server started again", second::start)));
        } finally {
            second.stop();
            second.undeploy();
        }
    }

    private void failover(String name, List<Step> steps) throws Exception {
        Eventually.until(
                "the rms mode set up",
                Duration.ofSeconds(60),
                () -> http.post("lab-orders/api/orders?mode=rms", "").status() == 201);
        List<OrderLoad> loads = new ArrayList<>();
        for (String mode : MODES) {
            // Each mode its own item: an xa order's lock does not slow the others.
            String sku = item(name + "-" + mode);
            loads.add(new OrderLoad(http, mode, RATE, () -> "{\"sku\": \"" + sku + "\"}", 0));
        }
        List<Move> moves = new ArrayList<>();
        try {
            Thread.sleep(PHASE_SECONDS * 1000L);
            for (Step step : steps) {
                progress(name + ": " + step.what());
                long from = System.currentTimeMillis();
                step.action().run();
                moves.add(new Move(step.what(), from, System.currentTimeMillis()));
                Thread.sleep(PHASE_SECONDS * 1000L);
            }
        } finally {
            // Whatever happened, no load goes on into the next test.
            for (OrderLoad load : loads) {
                load.stopArrivals();
            }
            for (OrderLoad load : loads) {
                load.awaitAnswers();
            }
        }

        List<String> phases = new ArrayList<>();
        List<String> counts = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        try (LabDatabases databases = new LabDatabases()) {
            for (OrderLoad load : loads) {
                LabDatabases.Settlement settled = databases.settle(load, QUIESCENCE);
                for (int i = 0; i < moves.size(); i++) {
                    Move move = moves.get(i);
                    long until = i + 1 < moves.size() ? moves.get(i + 1).fromMillis() : load.endMillis();
                    String row = String.format(
                            Locale.ROOT,
                            "| %s | %s | %d | %.1f | %.1f | %.1f |",
                            load.mode(),
                            move.what(),
                            errors(load, move.fromMillis(), until),
                            longestGap(acceptedMillis(load), move.fromMillis(), until) / 1000.0,
                            longestGap(settled.completedMillis(), move.fromMillis(), until) / 1000.0,
                            slowest(load, settled, move.fromMillis(), until) / 1000.0);
                    phases.add(row);
                    progress(row);
                }
                String row = String.format(
                        Locale.ROOT,
                        "| %s | %d accepted: %d reserved, %d rejected | %d | %d | %d | %d | %d |",
                        load.mode(),
                        load.acceptedIds().size(),
                        settled.reserved(),
                        settled.rejected(),
                        settled.lost(),
                        settled.duplicated(),
                        settled.disagreeing(),
                        settled.unshipped(),
                        settled.unacknowledged());
                counts.add(row);
                progress(row);
                if (settled.lost() + settled.duplicated() + settled.disagreeing() + settled.unshipped() > 0) {
                    failures.add(row);
                }
            }
        }
        Map<String, Long> unsettled = awaitReliableMessagesSettled(loads.get(0).startMillis());
        write(name, phases, counts, unsettled);
        assertEquals(List.of(), failures, "modes that lost, duplicated or disagreed");
        assertEquals(Map.of(), unsettled, "reliable messages not settled after quiescence");
    }

    /**
     * Waits until no reliable message made since {@code sinceMillis} is pending or sent (not yet consumed by all);
     * those left, by state.
     */
    private Map<String, Long> awaitReliableMessagesSettled(long sinceMillis) throws Exception {
        long deadline = System.nanoTime() + QUIESCENCE.toNanos();
        Map<String, Long> open;
        do {
            open = new LinkedHashMap<>();
            try (Connection c = Postgres.courier();
                    PreparedStatement query = c.prepareStatement("SELECT state, COUNT(*) FROM courier_rm_message "
                            + "WHERE state IN ('PENDING', 'SENT') AND created_at >= ? GROUP BY state")) {
                query.setTimestamp(1, new java.sql.Timestamp(sinceMillis));
                ResultSet rows = query.executeQuery();
                while (rows.next()) {
                    open.put(rows.getString(1), rows.getLong(2));
                }
            } catch (SQLException e) {
                open.put("unreadable: " + e.getMessage(), 0L);
            }
            if (open.isEmpty()) {
                return open;
            }
            Thread.sleep(1000);
        } while (System.nanoTime() < deadline);
        return open;
    }

    /** The sum of every sample of {@code metric} in Prometheus text. */
    private static double sum(String text, String metric) {
        return text.lines()
                .filter(line -> line.startsWith(metric + "{") || line.startsWith(metric + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /**
     * The longest an order accepted between the two moments (epoch ms, from 2 s before) waited from its acceptance to
     * its outcome: an order caught in the move.
     */
    private static long slowest(OrderLoad load, LabDatabases.Settlement settled, long fromMillis, long toMillis) {
        return load.acceptedAtMillis().entrySet().stream()
                .filter(e -> e.getValue() >= fromMillis - 2000 && e.getValue() < toMillis)
                .mapToLong(e ->
                        Math.max(0, settled.completedById().getOrDefault(e.getKey(), e.getValue()) - e.getValue()))
                .max()
                .orElse(0);
    }

    /** Answers other than 201 and 409 whose request was due between the two moments (epoch ms). */
    private static long errors(OrderLoad load, long fromMillis, long toMillis) {
        return load.answers().stream()
                .filter(a -> {
                    long due = load.startMillis() + a.intendedNanos() / 1_000_000;
                    return due >= fromMillis && due < toMillis;
                })
                .filter(OrderLoad.Answer::failed)
                .count();
    }

    private static long[] acceptedMillis(OrderLoad load) {
        return load.answers().stream()
                .filter(OrderLoad.Answer::accepted)
                .mapToLong(a -> load.startMillis() + a.atNanos() / 1_000_000)
                .toArray();
    }

    /** The longest time without an event from a second before {@code fromMillis} to {@code toMillis}: no service. */
    static long longestGap(long[] eventMillis, long fromMillis, long toMillis) {
        long[] within = Arrays.stream(eventMillis)
                .filter(m -> m >= fromMillis - 1000 && m <= toMillis)
                .sorted()
                .toArray();
        long previous = fromMillis - 1000;
        long longest = 0;
        for (long m : within) {
            longest = Math.max(longest, m - previous);
            previous = m;
        }
        return Math.max(longest, toMillis - previous);
    }

    private static void postgresPair(String command) throws Exception {
        PairRun run = pair(command);
        System.out.print(run.output());
        if (run.exit() != 0) {
            throw new IllegalStateException("bin/postgres-pair " + command + " failed");
        }
    }

    private String item(String name) {
        return LabScenario.stock(http, "failover-" + run + "-" + name, STOCK);
    }

    private void write(String name, List<String> phases, List<String> counts, Map<String, Long> unsettled)
            throws java.io.IOException {
        Path dir = Path.of("target/failover");
        Files.createDirectories(dir);
        List<String> text = new ArrayList<>();
        text.add(String.format(
                Locale.ROOT,
                "# Failover: %s (%s), %.0f orders/s per mode, %d s before, between and after the moves",
                name,
                java.time.LocalDate.now(),
                RATE,
                PHASE_SECONDS));
        text.add("");
        text.add("| mode | move | client errors | longest time without an accepted order (s) "
                + "| longest time without a completed order (s) | slowest order caught in the move, accepted to "
                + "completed (s) |");
        text.add("| --- | --- | --- | --- | --- | --- |");
        text.addAll(phases);
        text.add("");
        text.add("| mode | orders | lost | duplicated | disagreeing | unshipped (xa) | created despite an error |");
        text.add("| --- | --- | --- | --- | --- | --- | --- |");
        text.addAll(counts);
        text.add("");
        text.add("Reliable messages pending or sent after quiescence: " + (unsettled.isEmpty() ? "none" : unsettled));
        Files.write(dir.resolve(name + ".md"), text);
    }

    private void progress(String what) {
        System.out.printf(Locale.ROOT, "failover [%4.0fs] %s%n", (System.nanoTime() - started) / 1e9, what);
    }
}
