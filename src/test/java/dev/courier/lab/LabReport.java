package dev.courier.lab;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Writes the lab's results: {@code report.md} with tables, PNG plots (JFreeChart) and the raw data as CSV. */
final class LabReport {

    /**
     * One load run: a mode at a concurrency. {@code completed}: orders whose outcome committed while the load ran
     * (the headline: what the mode sustains); {@code placed}: orders accepted meanwhile; {@code drainSeconds}: from
     * the load's end to the last outcome; consistency: order committed → outcome committed.
     */
    record Run(
            String mode,
            int concurrency,
            int placed,
            int completed,
            int errors,
            double seconds,
            double drainSeconds,
            double p50,
            double p95,
            double p99,
            double consistencyP50,
            double consistencyP95,
            double consistencyP99,
            int reserved,
            int rejected,
            int lost,
            int duplicated,
            long negativeStock,
            Backlog backlog,
            Costs costs) {

        /** Accepted orders per second. */
        double throughput() {
            return placed / seconds;
        }

        /** Orders completed (outcome committed) per second while the load ran. */
        double completedPerSecond() {
            return completed / seconds;
        }

        /** Every order of the run over the time from the load's start to its last outcome: load and drain. */
        double allCompletedPerSecond() {
            return (reserved + rejected) / (seconds + drainSeconds);
        }
    }

    /** Accepted − completed over a run, every half second from the load's start until the last outcome. */
    record Backlog(double[] seconds, int[] waiting) {

        static Backlog of(long startMillis, java.util.Collection<Long> acceptedMillis, long[] completedMillis) {
            long[] accepted =
                    acceptedMillis.stream().mapToLong(Long::longValue).sorted().toArray();
            long[] completed = completedMillis.clone();
            java.util.Arrays.sort(completed);
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
            int i = Math.min(waiting.length - 1, (int) (runSeconds / 0.5));
            return waiting[i];
        }
    }

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

    /** One mode through one fault. Rates are accepted orders per second; times in seconds. */
    record FaultMode(
            String mode,
            int accepted,
            int errors,
            double before,
            double during,
            double recoverSeconds,
            double consistentAfterSeconds,
            int reserved,
            int unacknowledged,
            int lost,
            int duplicated) {}

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
            List<PreparedSampler.Sample> prepared,
            long negativeStock) {}

    private LabReport() {}

    static Path write(Path dir, Anchors anchors, List<Run> runs, List<Scarcity> scarcity, List<FaultRun> faults)
            throws IOException {
        Files.createDirectories(dir);
        List<String> csv = new ArrayList<>();
        csv.add("mode,concurrency,accepted,completed,errors,seconds,completed_per_s,accepted_per_s,drain_s,"
                + "all_completed_per_s,p50_ms,"
                + "p95_ms,p99_ms,consistency_p50_ms,consistency_p95_ms,consistency_p99_ms,reserved,rejected,lost,"
                + "duplicated,negative_stock");
        for (Run r : runs) {
            csv.add(String.format(
                    Locale.ROOT,
                    "%s,%d,%d,%d,%d,%.3f,%.1f,%.1f,%.2f,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%d,%d,%d,%d",
                    r.mode(),
                    r.concurrency(),
                    r.placed(),
                    r.completed(),
                    r.errors(),
                    r.seconds(),
                    r.completedPerSecond(),
                    r.throughput(),
                    r.drainSeconds(),
                    r.allCompletedPerSecond(),
                    r.p50(),
                    r.p95(),
                    r.p99(),
                    r.consistencyP50(),
                    r.consistencyP95(),
                    r.consistencyP99(),
                    r.reserved(),
                    r.rejected(),
                    r.lost(),
                    r.duplicated(),
                    r.negativeStock()));
        }
        Files.write(dir.resolve("load.csv"), csv);
        chart(
                dir.resolve("completed.png"),
                "Completed orders per second (outcome committed while the load ran)",
                "orders/s",
                runs,
                Run::completedPerSecond);
        chart(dir.resolve("throughput.png"), "Accepted orders per second", "orders/s", runs, Run::throughput);
        chart(dir.resolve("latency-p99.png"), "Upstream latency p99 (ms)", "ms", runs, Run::p99);
        chart(
                dir.resolve("consistency-p99.png"),
                "Order committed -> outcome committed, p99 (ms)",
                "ms",
                runs,
                Run::consistencyP99);
        for (String mode : runs.stream().map(Run::mode).distinct().toList()) {
            backlog(dir.resolve("backlog-" + mode + ".png"), mode, runs);
        }

        StringBuilder md = new StringBuilder("# Courier comparison lab\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Physical anchors of this machine: **fdatasync %.0f/s** (pg_test_fsync), "
                        + "**one-row INSERT %.0f tps** (pgbench, 4 clients).%n%n",
                anchors.fdatasyncPerSecond(),
                anchors.pgbenchInsertTps()));
        md.append("## Load\n\nEach mode alone, clients placing orders as fast as answers come. **Completed/s**: orders "
                + "whose outcome (reserved or rejected) committed in the orders database while the load ran, from the "
                + "rows' commit timestamps (`track_commit_timestamp`); accepted/s beside it; *backlog*: accepted − "
                + "completed when the load stopped; *drain*: from then to the last outcome; *all done/s*: every order of "
                + "the run over load and drain (what the mode finishes once the producers stop taking its cores). "
                + "*Commit → outcome*: the "
                + "order's commit (its client's 201, a clock read after the commit) to its outcome's commit; 0 for xa, "
                + "whose outcome commits with the order.\n\n");
        md.append(
                "| mode | clients | completed/s | accepted/s | backlog | drain s | all done/s | errors | % of pgbench | "
                        + "upstream p50 ms | p95 ms | p99 ms | commit → outcome p50 ms | p95 ms | p99 ms | reserved | rejected | "
                        + "lost | duplicated | negative stock |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Run r : runs) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | **%.0f** | %.0f | %d | %.1f | %.0f | %d | %.1f %% | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f "
                            + "| %d | %d | %d | %d | %d |%n",
                    r.mode(),
                    r.concurrency(),
                    r.completedPerSecond(),
                    r.throughput(),
                    r.backlog().atEnd(r.seconds()),
                    r.drainSeconds(),
                    r.allCompletedPerSecond(),
                    r.errors(),
                    100 * r.completedPerSecond() / anchors.pgbenchInsertTps(),
                    r.p50(),
                    r.p95(),
                    r.p99(),
                    r.consistencyP50(),
                    r.consistencyP95(),
                    r.consistencyP99(),
                    r.reserved(),
                    r.rejected(),
                    r.lost(),
                    r.duplicated(),
                    r.negativeStock()));
        }
        md.append("\n### What each order cost\n\nPer order of the run, all its outcomes included: forced WAL writes "
                + "(`pg_stat_wal.wal_sync`) on each PostgreSQL server, and CPU milliseconds per process from `/proc` "
                + "(the broker's journal syncs and Liberty's transaction log have no counter here).\n\n");
        md.append("| mode | clients | WAL syncs, orders server | WAL syncs, inventory server | CPU ms: Liberty | "
                + "PostgreSQL orders | PostgreSQL inventory | broker | total | load client |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (Run r : runs) {
            Costs c = r.costs();
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                    r.mode(),
                    r.concurrency(),
                    c.ordersSyncs(),
                    c.inventorySyncs(),
                    c.libertyMillis(),
                    c.ordersPostgresMillis(),
                    c.inventoryPostgresMillis(),
                    c.brokerMillis(),
                    c.cpuMillis(),
                    c.clientMillis()));
        }
        md.append("\n![completed](completed.png)\n![accepted](throughput.png)\n![latency p99](latency-p99.png)\n"
                + "![commit to outcome p99](consistency-p99.png)\n");
        for (String mode : runs.stream().map(Run::mode).distinct().toList()) {
            md.append("![backlog ")
                    .append(mode)
                    .append("](backlog-")
                    .append(mode)
                    .append(".png)\n");
        }
        md.append("\nRaw data: `load.csv`.\n");
        scarcity(md, scarcity);
        faults(dir, md, faults);
        Path report = dir.resolve("report.md");
        Files.writeString(report, md.toString());
        return report;
    }

    private static void scarcity(StringBuilder md, List<Scarcity> runs) {
        md.append("\n## Out of stock\n\nTwice as many one-item orders as there is stock of a fresh item, four clients. "
                + "XA refuses an order at once (409, nothing written); the asynchronous modes accept it and reject it "
                + "later (a compensation). *To outcome*: order committed → reservation or rejection written.\n\n");
        md.append(
                "| mode | attempts | accepted | refused at once | errors | reserved | rejected later | lost | duplicated "
                        + "| stock left | to outcome p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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

    private static void faults(Path dir, StringBuilder md, List<FaultRun> faults) throws IOException {
        md.append("\n## Faults\n\nThe three modes side by side, each offered 20 orders/s by four clients (5/s "
                + "each, within what every mode sustains), so they meet the same fault at the same moment. *Errors*: failed requests from the fault's start "
                + "(a failing client waits 100 ms before its next try). *Recovered*: from the fault's end until a 2-s "
                + "window reaches half the rate before the fault. *Consistent*: from the fault's end until the last "
                + "order of the run has its outcome. *Created despite an error*: orders in the orders database whose "
                + "client was answered with an error or not at all (a client would retry them: duplicates in business "
                + "terms unless it retries with the same key); they are settled and counted like the others. *In doubt*: PostgreSQL's prepared transactions not yet "
                + "resolved, sampled twice a second.\n\n");
        md.append(
                "| fault | mode | accepted | errors | orders/s before | during | recovered after s | consistent after s "
                        + "| created despite an error | lost | duplicated |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<String> timeline = new ArrayList<>(List.of("fault,second,mode,accepted,failed"));
        List<String> prepared = new ArrayList<>(List.of("fault,at_s,prepared,oldest_s,locks"));
        for (FaultRun f : faults) {
            for (FaultMode m : f.modes()) {
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %d | %d | %d |%n",
                        f.id(),
                        m.mode(),
                        m.accepted(),
                        m.errors(),
                        m.before(),
                        m.during(),
                        m.recoverSeconds(),
                        m.consistentAfterSeconds(),
                        m.unacknowledged(),
                        m.lost(),
                        m.duplicated()));
            }
            for (int i = 0; i < f.modes().size(); i++) {
                int[][] perSecond = perSecond(f.answers().get(i));
                for (int second = 0; second < perSecond.length; second++) {
                    timeline.add(String.format(
                            Locale.ROOT,
                            "%s,%d,%s,%d,%d",
                            f.id(),
                            second,
                            f.modes().get(i).mode(),
                            perSecond[second][0],
                            perSecond[second][1]));
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
        md.append(
                "\n| fault | what | fault lasted s | in doubt: most at once | longest held s | most locks held | negative stock |\n"
                        + "|---|---|---|---|---|---|---|\n");
        for (FaultRun f : faults) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.1f | %d | %.1f | %d | %d |%n",
                    f.id(),
                    f.what(),
                    f.endSeconds() - f.startSeconds(),
                    f.maxPrepared(),
                    f.longestPreparedSeconds(),
                    f.maxPreparedLocks(),
                    f.negativeStock()));
        }
        md.append("\n");
        for (FaultRun f : faults) {
            md.append("![").append(f.id()).append("](fault-").append(f.id()).append(".png)\n");
        }
        md.append("\nRaw data: `faults.csv` (accepted and failed per second), `prepared.csv` (in-doubt samples).\n");
        Files.write(dir.resolve("faults.csv"), timeline);
        Files.write(dir.resolve("prepared.csv"), prepared);
    }

    /** Accepted and failed answers in each second of a load's timeline. */
    private static int[][] perSecond(List<OrderLoad.Answer> answers) {
        int seconds = (int) (answers.stream()
                                .mapToLong(OrderLoad.Answer::atNanos)
                                .max()
                                .orElse(0)
                        / 1_000_000_000L)
                + 1;
        int[][] counts = new int[seconds][2];
        for (OrderLoad.Answer a : answers) {
            int second = (int) (a.atNanos() / 1_000_000_000L);
            if (a.accepted()) {
                counts[second][0]++;
            } else if (a.failed()) {
                counts[second][1]++;
            }
        }
        return counts;
    }

    /** Orders per second of each mode and failed requests per second, with the fault's window shaded. */
    private static void timeline(Path file, FaultRun f) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        XYSeries errors = new XYSeries("failed requests/s (all modes)");
        Map<Integer, Integer> failed = new TreeMap<>();
        for (int i = 0; i < f.modes().size(); i++) {
            XYSeries series = new XYSeries(f.modes().get(i).mode() + " orders/s");
            int[][] perSecond = perSecond(f.answers().get(i));
            for (int second = 0; second < perSecond.length; second++) {
                series.add(second + 0.5, perSecond[second][0]);
                failed.merge(second, perSecond[second][1], Integer::sum);
            }
            data.addSeries(series);
        }
        failed.forEach((second, count) -> errors.add(second + 0.5, count));
        data.addSeries(errors);
        JFreeChart chart = ChartFactory.createXYLineChart(
                f.what(), "seconds", "per second", data, PlotOrientation.VERTICAL, true, false, false);
        IntervalMarker window = new IntervalMarker(f.startSeconds(), f.endSeconds());
        window.setPaint(new Color(255, 200, 200, 90));
        window.setLabel("fault");
        chart.getXYPlot().addDomainMarker(window);
        readable(chart.getXYPlot());
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 450);
    }

    private static void chart(
            Path file, String title, String axis, List<Run> runs, java.util.function.ToDoubleFunction<Run> value)
            throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (String mode : runs.stream().map(Run::mode).distinct().toList()) {
            XYSeries series = new XYSeries(mode);
            runs.stream()
                    .filter(r -> r.mode().equals(mode))
                    .forEach(r -> series.add(r.concurrency(), value.applyAsDouble(r)));
            data.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                title, "concurrent clients", axis, data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogAxis clients = new LogAxis("concurrent clients");
        clients.setBase(2);
        clients.setStandardTickUnits(org.jfree.chart.axis.NumberAxis.createIntegerTickUnits());
        clients.setNumberFormatOverride(new java.text.DecimalFormat("0")); // 1, 4, 16, 64; not 2^0 … 2^6
        plot.setDomainAxis(clients);
        ((org.jfree.chart.renderer.xy.XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        readable(plot);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 800, 500);
    }

    /** Accepted − completed over time in one mode, a line per concurrency. */
    private static void backlog(Path file, String mode, List<Run> runs) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Run r : runs) {
            if (!r.mode().equals(mode)) {
                continue;
            }
            XYSeries series = new XYSeries(r.concurrency() + " clients");
            for (int i = 0; i < r.backlog().seconds().length; i++) {
                series.add(r.backlog().seconds()[i], r.backlog().waiting()[i]);
            }
            data.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                mode + ": accepted − completed (orders waiting for their outcome)",
                "seconds since the load started",
                "orders",
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        readable(chart.getXYPlot());
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 800, 500);
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
