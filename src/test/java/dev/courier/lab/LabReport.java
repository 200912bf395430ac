package dev.courier.lab;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Writes the lab's results: {@code report.md} with tables, PNG plots (JFreeChart) and the raw data as CSV. */
final class LabReport {

    /**
     * One point of a ladder: a mode and stock shape at an offered rate, one repetition. {@code completed}: orders
     * whose outcome committed while the arrivals ran (the headline); latencies in ms: upstream from each order's
     * intended start to its answer, consistency from the order's commit to its outcome's commit, to-outcome from
     * the intended start to the outcome's commit; lock hold: xa's stock-row lock, NaN for the other modes.
     */
    record Point(
            String mode,
            String shape,
            double offered,
            int rep,
            double seconds,
            int accepted,
            int completed,
            int errors,
            double drainSeconds,
            double p50,
            double p99,
            double consistencyP50,
            double consistencyP95,
            double consistencyP99,
            double toOutcomeP99,
            int lost,
            int duplicated,
            int disagreeing,
            int unshipped,
            int unacknowledged,
            long negativeStock,
            double lockHoldP50,
            double lockHoldP99,
            Backlog backlog,
            Costs costs) {

        double completedPerSecond() {
            return completed / seconds;
        }

        double acceptedPerSecond() {
            return accepted / seconds;
        }

        double errorsPerSecond() {
            return errors / seconds;
        }
    }

    /** Accepted − completed over a run, every half second from the load's start until the last outcome. */
    record Backlog(double[] seconds, int[] waiting) {

        static Backlog of(long startMillis, Collection<Long> acceptedMillis, long[] completedMillis) {
            long[] accepted =
                    acceptedMillis.stream().mapToLong(Long::longValue).sorted().toArray();
            long[] completed = completedMillis.clone();
            Arrays.sort(completed);
            long end = Math.max(
                    accepted.length == 0 ? startMillis : accepted[accepted.length - 1],
                    completed.length == 0 ? startMillis : completed[completed.length - 1]);
            int points = (int) ((end - startMillis) / 500) + 2;
            double[] at = new double[points];
            int[] waiting = new int[points];
            int a = 0;
            int c = 0;
            for (int i = 0; i < points; i++) {
                long t = startMillis + i * 500L;
                while (a < accepted.length && accepted[a] <= t) {
                    a++;
                }
                while (c < completed.length && completed[c] <= t) {
                    c++;
                }
                at[i] = i * 0.5;
                waiting[i] = Math.max(0, a - c);
            }
            return new Backlog(at, waiting);
        }

        int atEnd(double runSeconds) {
            return waiting[Math.min(waiting.length - 1, (int) (runSeconds / 0.5))];
        }
    }

    /** A shape's stock after all its ladders: items where initial − reserved ≠ available, reservations orphaned. */
    record Balance(String shape, int items, int unbalanced, int orphans) {}

    /** How the lab ran, for the report's header. */
    record Setting(
            String date,
            String rmsTransport,
            String rmsReply,
            int repetitions,
            double pointSeconds,
            double minPointSeconds,
            double faultRate,
            int faultSeconds) {}

    /** One mode's scarcity run: more orders than stock. */
    record Scarcity(
            String mode,
            int attempts,
            int accepted,
            int refused,
            int errors,
            int reserved,
            int rejected,
            int lost,
            int duplicated,
            long stockLeft,
            double outcomeP50,
            double outcomeP99) {}

    /**
     * One mode through one fault. Rates: completed orders per second; {@code recoverSeconds}: from the fault's end
     * until a 2-s window completes 90 % of the rate before; {@code drainedSeconds}: from the fault's end until
     * every order accepted before it has its outcome; {@code failures}: failed answers by HTTP status (0: no
     * answer came).
     */
    record FaultMode(
            String mode,
            int accepted,
            int errors,
            String failures,
            double offered,
            double before,
            double during,
            double recoverSeconds,
            double drainedSeconds,
            int unacknowledged,
            int lost,
            int duplicated,
            int disagreeing,
            int unshipped,
            long[] completedMillis) {}

    /** One fault, with every mode's figures and answers, and what PostgreSQL held in doubt meanwhile. */
    record FaultRun(
            String id,
            String what,
            double startSeconds,
            double endSeconds,
            long startMillis,
            List<FaultMode> modes,
            List<List<OrderLoad.Answer>> answers,
            int maxPrepared,
            double longestPreparedSeconds,
            int maxPreparedLocks,
            int inDoubtAtKill,
            List<PreparedSampler.Sample> prepared,
            long negativeStock) {}

    private LabReport() {}

    /** The median of a value over points (the mean of the middle two for an even count); NaN for none. */
    static double median(List<Point> points, ToDoubleFunction<Point> value) {
        double[] v = points.stream()
                .mapToDouble(value)
                .filter(d -> !Double.isNaN(d))
                .sorted()
                .toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The highest offered rate at which the mode's median completed rate reached 90 % of it; 0 if none did. */
    static double sustained(List<Point> points, String mode, String shape) {
        return steps(points, mode, shape).entrySet().stream()
                .filter(e -> median(e.getValue(), Point::completedPerSecond) >= 0.9 * e.getKey())
                .mapToDouble(Map.Entry::getKey)
                .max()
                .orElse(0);
    }

    /** A ladder's points grouped by offered rate, in the order they ran. */
    private static Map<Double, List<Point>> steps(List<Point> points, String mode, String shape) {
        return points.stream()
                .filter(p -> p.mode().equals(mode) && p.shape().equals(shape))
                .collect(Collectors.groupingBy(Point::offered, LinkedHashMap::new, Collectors.toList()));
    }

    /** One rate of one mode's ladder on one stock shape, with its repetitions. */
    private record Step(String mode, String shape, double rate, List<Point> reps) {}

    /** Every step of every ladder: shape by shape, mode by mode, rates in the order they ran. */
    private static List<Step> everyStep(List<Point> points) {
        List<Step> all = new ArrayList<>();
        for (String shape : shapes(points)) {
            for (String mode : modes(points)) {
                steps(points, mode, shape).forEach((rate, reps) -> all.add(new Step(mode, shape, rate, reps)));
            }
        }
        return all;
    }

    private static List<String> modes(List<Point> points) {
        return points.stream().map(Point::mode).distinct().toList();
    }

    private static List<String> shapes(List<Point> points) {
        return points.stream().map(Point::shape).distinct().toList();
    }

    static Path write(
            Path dir,
            Setting setting,
            Anchors anchors,
            List<Point> points,
            List<Balance> balances,
            List<Scarcity> scarcity,
            List<FaultRun> faults)
            throws IOException {
        Files.createDirectories(dir);
        csv(dir, points);
        StringBuilder md = new StringBuilder("# Courier comparison lab\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Run of %s on this machine (2 cores, 24 GiB, one disk): the orders database and Courier's on one "
                        + "PostgreSQL server, the inventory on a second; one Liberty with two applications, the "
                        + "orders service (`lab-orders.war`: the queue library in its own transaction, the reliable "
                        + "service over HTTP) and Courier with the inventory and shipping services "
                        + "(`courier-lab.war`); one Artemis broker. The rms inventory reaches Courier over `%s` "
                        + "transport; its reply goes `%s` (direct: written on the order after the "
                        + "inventory's commit, the queue mode's reply leg; reliable: a second reliable message). "
                        + "Physical anchors measured in the same run: **fdatasync %.0f/s** "
                        + "(pg_test_fsync), **one-row INSERT %.0f tps** (pgbench, 4 clients).%n%n"
                        + "Each ladder point offers orders open-loop (arrivals on a schedule, never waiting for "
                        + "answers) for %.0f s or 1,000 orders (at least %.0f s), %d repetition(s); figures are "
                        + "medians with [min–max]. A ladder doubles the rate until the median completed rate falls "
                        + "below 90 %% of the offered one.%n%n",
                setting.date(),
                setting.rmsTransport(),
                setting.rmsReply(),
                anchors.fdatasyncPerSecond(),
                anchors.pgbenchInsertTps(),
                setting.pointSeconds(),
                setting.minPointSeconds(),
                setting.repetitions()));
        md.append("**Completed**: orders whose outcome (reserved or rejected) committed in the orders database while "
                + "the arrivals ran, from the rows' commit timestamps (`track_commit_timestamp`). **Upstream**: "
                + "intended start → answer (HdrHistogram; a late answer delays nothing that follows). **Commit → "
                + "outcome**: the order's commit (its 201, a clock read after the commit) → its outcome's commit; 0 "
                + "for xa, whose outcome commits with the order. **To outcome**: intended start → outcome committed, "
                + "what the business waits for.\n\n");
        saturation(md, points);
        ladder(md, points);
        costs(md, points);
        balances(md, balances);
        plots(dir, md, points);
        scarcity(md, scarcity);
        faults(dir, md, setting, faults);
        Path report = dir.resolve("report.md");
        Files.writeString(report, md.toString());
        return report;
    }

    private static void saturation(StringBuilder md, List<Point> points) {
        md.append("## Where each mode saturates\n\n*Sustained*: the highest offered rate whose median completed rate "
                + "reached 90 % of it. The costs are the medians at that rate: CPU of Liberty, both PostgreSQL "
                + "servers and the broker per order; forced WAL writes (`pg_stat_wal.wal_sync`) per order on each "
                + "server; xa's hold of the stock row's lock (from its `UPDATE` to the transaction's end).\n\n");
        md.append(
                "| mode | stock | sustained orders/s | most completed/s | commit → outcome p99 ms | to outcome p99 ms "
                        + "| CPU ms/order | WAL syncs/order orders | inventory | xa lock hold p50 ms | p99 ms |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (String shape : shapes(points)) {
            for (String mode : modes(points)) {
                Map<Double, List<Point>> steps = steps(points, mode, shape);
                if (steps.isEmpty()) {
                    continue;
                }
                double sustained = sustained(points, mode, shape);
                double most = steps.values().stream()
                        .mapToDouble(reps -> median(reps, Point::completedPerSecond))
                        .max()
                        .orElse(0);
                List<Point> at =
                        steps.getOrDefault(sustained, steps.values().iterator().next());
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | **%.0f** | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %s | %s |%n",
                        mode,
                        shape,
                        sustained,
                        most,
                        median(at, Point::consistencyP99),
                        median(at, Point::toOutcomeP99),
                        median(at, p -> p.costs().cpuMillis()),
                        median(at, p -> p.costs().ordersSyncs()),
                        median(at, p -> p.costs().inventorySyncs()),
                        figure(median(at, Point::lockHoldP50)),
                        figure(median(at, Point::lockHoldP99))));
            }
        }
    }

    private static void ladder(StringBuilder md, List<Point> points) {
        md.append("\n## Every rate\n\n*Backlog*: accepted − completed when the arrivals stopped; *drain*: from then "
                + "to the last outcome. Audit per point, after quiescence, from the databases: *lost* (accepted "
                + "without an order row or without an outcome), *duplicated* (several reservations, or reserved and "
                + "rejected), *disagreeing* (the order's state says one thing, the inventory another), *unshipped* "
                + "(xa: reserved without the shipment its `OrderPlaced` event books), *unacknowledged* (created "
                + "although the client saw an error: a client would retry it), negative stock rows.\n\n");
        md.append(
                "| mode | stock | offered/s | completed/s | accepted/s | errors | backlog | drain s | upstream p50 ms "
                        + "| p99 ms | commit → outcome p50 ms | p95 ms | p99 ms | to outcome p99 ms | lost | duplicated "
                        + "| disagreeing | unshipped | unacknowledged | negative stock |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Step step : everyStep(points)) {
            List<Point> reps = step.reps();
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.0f | **%s** | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                            + "| %d | %d | %d | %d | %d | %d |%n",
                    step.mode(),
                    step.shape(),
                    step.rate(),
                    range(reps, Point::completedPerSecond),
                    range(reps, Point::acceptedPerSecond),
                    range(reps, Point::errors),
                    range(reps, p -> p.backlog().atEnd(p.seconds())),
                    range(reps, Point::drainSeconds),
                    range(reps, Point::p50),
                    range(reps, Point::p99),
                    range(reps, Point::consistencyP50),
                    range(reps, Point::consistencyP95),
                    range(reps, Point::consistencyP99),
                    range(reps, Point::toOutcomeP99),
                    reps.stream().mapToInt(Point::lost).sum(),
                    reps.stream().mapToInt(Point::duplicated).sum(),
                    reps.stream().mapToInt(Point::disagreeing).sum(),
                    reps.stream().mapToInt(Point::unshipped).sum(),
                    reps.stream().mapToInt(Point::unacknowledged).sum(),
                    reps.stream().mapToLong(Point::negativeStock).max().orElse(0)));
        }
    }

    private static void costs(StringBuilder md, List<Point> points) {
        md.append("\n## What each order cost\n\nMedians per order at every rate, all its outcomes included: forced "
                + "WAL writes on each PostgreSQL server (`pg_stat_wal.wal_sync`: group commit shares one among "
                + "several commits, so the figure falls as the rate rises), CPU ms per process from `/proc`. Not "
                + "counted: the broker's journal syncs and Liberty's transaction log (neither exposes a counter "
                + "here; the broker's CPU and Liberty's CPU include their work).\n\n");
        md.append("| mode | stock | offered/s | WAL syncs orders | inventory | CPU ms: Liberty | PostgreSQL orders "
                + "| PostgreSQL inventory | broker | total | load client | xa lock hold p50 ms | p99 ms |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Step step : everyStep(points)) {
            List<Point> reps = step.reps();
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s |%n",
                    step.mode(),
                    step.shape(),
                    step.rate(),
                    median(reps, p -> p.costs().ordersSyncs()),
                    median(reps, p -> p.costs().inventorySyncs()),
                    median(reps, p -> p.costs().libertyMillis()),
                    median(reps, p -> p.costs().ordersPostgresMillis()),
                    median(reps, p -> p.costs().inventoryPostgresMillis()),
                    median(reps, p -> p.costs().brokerMillis()),
                    median(reps, p -> p.costs().cpuMillis()),
                    median(reps, p -> p.costs().clientMillis()),
                    figure(median(reps, Point::lockHoldP50)),
                    figure(median(reps, Point::lockHoldP99))));
        }
    }

    private static void balances(StringBuilder md, List<Balance> balances) {
        md.append("\n## Stock balance\n\nAfter all three ladders on a shape, per item: initial − reserved (rows in the "
                + "inventory's reservations) = available? And reservations whose order does not exist.\n\n");
        md.append("| stock | items | items out of balance | reservations without an order |\n|---|---|---|---|\n");
        for (Balance b : balances) {
            md.append(String.format(
                    Locale.ROOT, "| %s | %d | %d | %d |%n", b.shape(), b.items(), b.unbalanced(), b.orphans()));
        }
    }

    private static void plots(Path dir, StringBuilder md, List<Point> points) throws IOException {
        md.append("\n## Plots\n\n");
        for (String shape : shapes(points)) {
            XYSeriesCollection data = new XYSeriesCollection();
            XYSeries offered = new XYSeries("offered (all completed)");
            for (String mode : modes(points)) {
                XYSeries series = new XYSeries(mode);
                steps(points, mode, shape).forEach((rate, reps) -> {
                    series.add((double) rate, Math.max(0.1, median(reps, Point::completedPerSecond)));
                    offered.addOrUpdate((double) rate, (double) rate);
                });
                data.addSeries(series);
            }
            data.addSeries(offered);
            String file = "completed-" + shape + ".png";
            logLog(
                    dir.resolve(file),
                    shape + " stock: completed orders/s against offered",
                    "offered orders/s",
                    "completed orders/s (median)",
                    data,
                    true);
            md.append("![completed ").append(shape).append("](").append(file).append(")\n");
        }
        XYSeriesCollection tradeOff = new XYSeriesCollection();
        XYSeriesCollection upstream = new XYSeriesCollection();
        XYSeriesCollection errors = new XYSeriesCollection();
        for (String shape : shapes(points)) {
            for (String mode : modes(points)) {
                XYSeries t = new XYSeries(mode + " " + shape, false);
                XYSeries u = new XYSeries(mode + " " + shape);
                XYSeries e = new XYSeries(mode + " " + shape);
                steps(points, mode, shape).forEach((rate, reps) -> {
                    double completed = median(reps, Point::completedPerSecond);
                    double toOutcome = median(reps, Point::toOutcomeP99);
                    if (completed > 0 && toOutcome > 0) {
                        t.add(completed, toOutcome);
                    }
                    u.add((double) rate, Math.max(0.1, median(reps, Point::p99)));
                    e.add((double) rate, median(reps, Point::errorsPerSecond));
                });
                tradeOff.addSeries(t);
                upstream.addSeries(u);
                errors.addSeries(e);
            }
        }
        logLog(
                dir.resolve("trade-off.png"),
                "Trade-off: completed orders/s against p99 intended start -> outcome committed",
                "completed orders/s (median)",
                "p99 to outcome, ms",
                tradeOff,
                true);
        logLog(
                dir.resolve("upstream-p99.png"),
                "Upstream p99 (intended start -> answer) against offered rate",
                "offered orders/s",
                "p99 ms",
                upstream,
                true);
        logLog(
                dir.resolve("errors.png"),
                "Failed requests per second against offered rate",
                "offered orders/s",
                "failed requests/s (median)",
                errors,
                false);
        md.append("![trade-off](trade-off.png)\n![upstream p99](upstream-p99.png)\n![errors](errors.png)\n");
        for (String shape : shapes(points)) {
            for (String mode : modes(points)) {
                XYSeriesCollection data = new XYSeriesCollection();
                steps(points, mode, shape).forEach((rate, reps) -> {
                    Point first = reps.get(0);
                    XYSeries series = new XYSeries(String.format(Locale.ROOT, "%.0f/s", rate));
                    for (int i = 0; i < first.backlog().seconds().length; i++) {
                        series.add(first.backlog().seconds()[i], first.backlog().waiting()[i]);
                    }
                    data.addSeries(series);
                });
                String file = "backlog-" + mode + "-" + shape + ".png";
                JFreeChart chart = ChartFactory.createXYLineChart(
                        mode + ", " + shape + " stock: accepted − completed (orders waiting for their outcome)",
                        "seconds since the arrivals started",
                        "orders",
                        data,
                        PlotOrientation.VERTICAL,
                        true,
                        false,
                        false);
                readable(chart.getXYPlot());
                ChartUtils.saveChartAsPNG(dir.resolve(file).toFile(), chart, 800, 500);
                md.append("![backlog ")
                        .append(mode)
                        .append(' ')
                        .append(shape)
                        .append("](")
                        .append(file)
                        .append(")\n");
            }
        }
        md.append("\nRaw data: `ladder.csv` (one row per point and repetition).\n");
    }

    private static void csv(Path dir, List<Point> points) throws IOException {
        List<String> csv = new ArrayList<>();
        csv.add("mode,shape,offered_per_s,rep,seconds,accepted,completed,errors,completed_per_s,accepted_per_s,"
                + "drain_s,upstream_p50_ms,upstream_p99_ms,consistency_p50_ms,consistency_p95_ms,consistency_p99_ms,"
                + "to_outcome_p99_ms,lost,duplicated,disagreeing,unshipped,unacknowledged,negative_stock,"
                + "lock_hold_p50_ms,lock_hold_p99_ms,wal_syncs_orders,wal_syncs_inventory,cpu_liberty_ms,"
                + "cpu_pg_orders_ms,cpu_pg_inventory_ms,cpu_broker_ms,cpu_client_ms");
        for (Point p : points) {
            Costs c = p.costs();
            csv.add(String.format(
                    Locale.ROOT,
                    "%s,%s,%.0f,%d,%.3f,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%d,%d,%d,%d,%d,"
                            + "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f",
                    p.mode(),
                    p.shape(),
                    p.offered(),
                    p.rep(),
                    p.seconds(),
                    p.accepted(),
                    p.completed(),
                    p.errors(),
                    p.completedPerSecond(),
                    p.acceptedPerSecond(),
                    p.drainSeconds(),
                    p.p50(),
                    p.p99(),
                    p.consistencyP50(),
                    p.consistencyP95(),
                    p.consistencyP99(),
                    p.toOutcomeP99(),
                    p.lost(),
                    p.duplicated(),
                    p.disagreeing(),
                    p.unshipped(),
                    p.unacknowledged(),
                    p.negativeStock(),
                    p.lockHoldP50(),
                    p.lockHoldP99(),
                    c.ordersSyncs(),
                    c.inventorySyncs(),
                    c.libertyMillis(),
                    c.ordersPostgresMillis(),
                    c.inventoryPostgresMillis(),
                    c.brokerMillis(),
                    c.clientMillis()));
        }
        Files.write(dir.resolve("ladder.csv"), csv);
    }

    private static void scarcity(StringBuilder md, List<Scarcity> runs) {
        md.append("\n## Out of stock\n\nTwice as many one-item orders as there is stock of a fresh item, 50 a second "
                + "open-loop. XA refuses an order at once (409, nothing written); the asynchronous modes accept it "
                + "and reject it later (a compensation). *To outcome*: order committed → reservation or rejection "
                + "committed.\n\n");
        md.append("| mode | attempts | accepted | refused at once | errors | reserved | rejected later | lost "
                + "| duplicated | stock left | commit → outcome p50 ms | p99 ms |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Scarcity r : runs) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.1f | %.1f |%n",
                    r.mode(),
                    r.attempts(),
                    r.accepted(),
                    r.refused(),
                    r.errors(),
                    r.reserved(),
                    r.rejected(),
                    r.lost(),
                    r.duplicated(),
                    r.stockLeft(),
                    r.outcomeP50(),
                    r.outcomeP99()));
        }
    }

    private static void faults(Path dir, StringBuilder md, Setting setting, List<FaultRun> faults) throws IOException {
        md.append(String.format(
                Locale.ROOT,
                "%n## Faults%n%nThe three modes side by side, each on a hot item of its own (a lock left by one mode's "
                        + "fault stalls only that mode), each offered **%.1f orders/s** "
                        + "open-loop: half the lowest rate every mode sustained there (measured above), so that none "
                        + "carries a backlog into the fault. Each fault lasts %d s (the server kill: as long as the "
                        + "restart takes). *Errors*: failed requests from the fault's start, *by status* their HTTP status (0: "
                        + "no answer came). *Before*, *during*: "
                        + "completed orders/s. *Back to 90 %%*: from the fault's end until a 2-s window completes 90 %% "
                        + "of the rate before. *No order waiting*: from the fault's end until every order accepted "
                        + "before it has its outcome. *Created despite an error*: orders in the database whose client "
                        + "was answered with an error or not at all. *In doubt*: PostgreSQL's prepared transactions, "
                        + "sampled twice a second.%n%n",
                setting.faultRate(),
                setting.faultSeconds()));
        md.append("| fault | mode | accepted | errors | by status | completed/s before | during | back to 90 % after s "
                + "| no order waiting after s | created despite an error | lost | duplicated | disagreeing "
                + "| unshipped |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<String> timeline = new ArrayList<>(List.of("fault,second,mode,accepted,completed,failed"));
        List<String> prepared = new ArrayList<>(List.of("fault,at_s,prepared,oldest_s,locks"));
        for (FaultRun f : faults) {
            for (int i = 0; i < f.modes().size(); i++) {
                FaultMode m = f.modes().get(i);
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %d | %d | %s | %.1f | %.1f | %s | %s | %d | %d | %d | %d | %d |%n",
                        f.id(),
                        m.mode(),
                        m.accepted(),
                        m.errors(),
                        m.failures(),
                        m.before(),
                        m.during(),
                        figure(m.recoverSeconds()),
                        figure(m.drainedSeconds()),
                        m.unacknowledged(),
                        m.lost(),
                        m.duplicated(),
                        m.disagreeing(),
                        m.unshipped()));
                int[][] perSecond = perSecond(f, i);
                for (int second = 0; second < perSecond.length; second++) {
                    timeline.add(String.format(
                            Locale.ROOT,
                            "%s,%d,%s,%d,%d,%d",
                            f.id(),
                            second,
                            m.mode(),
                            perSecond[second][0],
                            perSecond[second][1],
                            perSecond[second][2]));
                }
            }
            f.prepared()
                    .forEach(p -> prepared.add(String.format(
                            Locale.ROOT,
                            "%s,%.1f,%d,%.1f,%d",
                            f.id(),
                            p.atSeconds(),
                            p.prepared(),
                            p.oldestSeconds(),
                            p.locks())));
            timeline(dir.resolve("fault-" + f.id() + ".png"), f);
        }
        md.append("\n| fault | what | fault lasted s | in doubt: most at once | longest held s | most locks held "
                + "| prepared at the kill | negative stock |\n|---|---|---|---|---|---|---|---|\n");
        for (FaultRun f : faults) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.1f | %d | %.1f | %d | %s | %d |%n",
                    f.id(),
                    f.what(),
                    f.endSeconds() - f.startSeconds(),
                    f.maxPrepared(),
                    f.longestPreparedSeconds(),
                    f.maxPreparedLocks(),
                    f.inDoubtAtKill() < 0 ? "" : Integer.toString(f.inDoubtAtKill()),
                    f.negativeStock()));
        }
        md.append("\n");
        for (FaultRun f : faults) {
            md.append("![").append(f.id()).append("](fault-").append(f.id()).append(".png)\n");
        }
        md.append("\nRaw data: `faults.csv` (accepted, completed and failed per second and mode), `prepared.csv` "
                + "(in-doubt samples).\n");
        Files.write(dir.resolve("faults.csv"), timeline);
        Files.write(dir.resolve("prepared.csv"), prepared);
    }

    /**
     * Per whole second of a fault run's timeline (the final partial second left out), for one mode: accepted
     * answers, outcomes committed, failed answers.
     */
    private static int[][] perSecond(FaultRun f, int mode) {
        List<OrderLoad.Answer> answers = f.answers().get(mode);
        int seconds = (int)
                (answers.stream().mapToLong(OrderLoad.Answer::atNanos).max().orElse(0) / 1_000_000_000L);
        int[][] counts = new int[seconds][3];
        for (OrderLoad.Answer a : answers) {
            int second = (int) (a.atNanos() / 1_000_000_000L);
            if (second >= seconds) {
                continue;
            }
            if (a.accepted()) {
                counts[second][0]++;
            } else if (a.failed()) {
                counts[second][2]++;
            }
        }
        for (long completed : f.modes().get(mode).completedMillis()) {
            long second = (completed - f.startMillis()) / 1000;
            if (second >= 0 && second < seconds) {
                counts[(int) second][1]++;
            }
        }
        return counts;
    }

    /** Accepted, completed and failed per second of each mode, with the fault's window shaded. */
    private static void timeline(Path file, FaultRun f) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (int i = 0; i < f.modes().size(); i++) {
            String mode = f.modes().get(i).mode();
            XYSeries accepted = new XYSeries(mode + " accepted/s");
            XYSeries completed = new XYSeries(mode + " completed/s");
            XYSeries failed = new XYSeries(mode + " failed/s");
            int[][] perSecond = perSecond(f, i);
            for (int second = 0; second < perSecond.length; second++) {
                accepted.add(second + 0.5, perSecond[second][0]);
                completed.add(second + 0.5, perSecond[second][1]);
                failed.add(second + 0.5, perSecond[second][2]);
            }
            data.addSeries(accepted);
            data.addSeries(completed);
            data.addSeries(failed);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                f.what(), "seconds", "per second", data, PlotOrientation.VERTICAL, true, false, false);
        IntervalMarker window = new IntervalMarker(f.startSeconds(), f.endSeconds());
        window.setPaint(new Color(255, 200, 200, 90));
        window.setLabel("fault");
        chart.getXYPlot().addDomainMarker(window);
        readable(chart.getXYPlot());
        // One colour per mode; accepted solid, completed dashed, failed dotted.
        Color[] colours = {new Color(200, 40, 40), new Color(30, 90, 200), new Color(30, 150, 60)};
        float[][] dashes = {null, {8f, 4f}, {2f, 3f}};
        for (int s = 0; s < data.getSeriesCount(); s++) {
            chart.getXYPlot().getRenderer().setSeriesPaint(s, colours[(s / 3) % colours.length]);
            float[] dash = dashes[s % 3];
            chart.getXYPlot()
                    .getRenderer()
                    .setSeriesStroke(
                            s,
                            dash == null
                                    ? new BasicStroke(2f)
                                    : new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dash, 0f));
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 500);
    }

    /** A line chart with a logarithmic x axis (rates double) and, if asked, a logarithmic y axis. */
    private static void logLog(Path file, String title, String x, String y, XYSeriesCollection data, boolean logY)
            throws IOException {
        JFreeChart chart =
                ChartFactory.createXYLineChart(title, x, y, data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setDomainAxis(logAxis(x));
        if (logY) {
            plot.setRangeAxis(logAxis(y));
        }
        ((XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        readable(plot);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 550);
    }

    /** Base-2 log axis labelled with plain numbers (25, 50, 100, …; not 2^4.6). */
    private static LogAxis logAxis(String label) {
        LogAxis axis = new LogAxis(label);
        axis.setBase(2);
        axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        axis.setNumberFormatOverride(new DecimalFormat("0.#"));
        axis.setSmallestValue(0.1);
        return axis;
    }

    /** The median with its range over repetitions: "12.3 [11.0–13.1]", or one figure for one repetition. */
    private static String range(List<Point> reps, ToDoubleFunction<Point> value) {
        double median = median(reps, value);
        if (reps.size() == 1 || Double.isNaN(median)) {
            return figure(median);
        }
        double min = reps.stream().mapToDouble(value).min().orElse(Double.NaN);
        double max = reps.stream().mapToDouble(value).max().orElse(Double.NaN);
        return figure(median) + " [" + figure(min) + "–" + figure(max) + "]";
    }

    private static String figure(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        return String.format(Locale.ROOT, Math.abs(value) >= 100 ? "%.0f" : "%.1f", value);
    }

    /** White background, grey grid lines, thicker lines: the default grey plot prints badly. */
    private static void readable(XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            plot.getRenderer().setSeriesStroke(i, new BasicStroke(2f));
        }
    }
}
