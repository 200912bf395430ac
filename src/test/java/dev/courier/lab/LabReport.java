package dev.courier.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Writes the lab's results: {@code report.md} with tables, PNG plots (JFreeChart) and the raw data as CSV. */
final class LabReport {

    /** One load run: a mode at a concurrency. */
    record Run(String mode, int concurrency, int placed, int errors, double seconds, double p50, double p95, double p99,
            double consistencyP50, double consistencyP99, int reserved, int rejected, int lost, int duplicated,
            long negativeStock) {

        double throughput() {
            return placed / seconds;
        }
    }

    private LabReport() {
    }

    static Path write(Path dir, Anchors anchors, List<Run> runs) throws IOException {
        Files.createDirectories(dir);
        List<String> csv = new ArrayList<>();
        csv.add("mode,concurrency,placed,errors,seconds,orders_per_s,p50_ms,p95_ms,p99_ms,consistency_p50_ms,"
                + "consistency_p99_ms,reserved,rejected,lost,duplicated,negative_stock");
        for (Run r : runs) {
            csv.add(String.format(Locale.ROOT, "%s,%d,%d,%d,%.3f,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%d,%d,%d,%d", r.mode(),
                    r.concurrency(), r.placed(), r.errors(), r.seconds(), r.throughput(), r.p50(), r.p95(), r.p99(),
                    r.consistencyP50(), r.consistencyP99(), r.reserved(), r.rejected(), r.lost(), r.duplicated(),
                    r.negativeStock()));
        }
        Files.write(dir.resolve("load.csv"), csv);
        chart(dir.resolve("throughput.png"), "Orders per second by concurrency", "orders/s", runs, Run::throughput);
        chart(dir.resolve("latency-p50.png"), "Upstream latency p50 (ms)", "ms", runs, Run::p50);
        chart(dir.resolve("latency-p99.png"), "Upstream latency p99 (ms)", "ms", runs, Run::p99);
        chart(dir.resolve("consistency-p50.png"), "Order committed -> stock reserved, p50 (ms)", "ms", runs,
                Run::consistencyP50);

        StringBuilder md = new StringBuilder("# Courier comparison lab\n\n");
        md.append(String.format(Locale.ROOT, "Physical anchors of this machine: **fdatasync %.0f/s** (pg_test_fsync), "
                + "**one-row INSERT %.0f tps** (pgbench, 4 clients).%n%n", anchors.fdatasyncPerSecond(), anchors.pgbenchInsertTps()));
        md.append("| mode | concurrency | orders | errors | orders/s | % of pgbench | p50 ms | p95 ms | p99 ms | "
                + "to consistency p50 ms | p99 ms | reserved | rejected | lost | duplicated | negative stock |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Run r : runs) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %.0f | %.1f %% | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %d | %d |%n",
                    r.mode(), r.concurrency(), r.placed(), r.errors(), r.throughput(),
                    100 * r.throughput() / anchors.pgbenchInsertTps(), r.p50(), r.p95(), r.p99(), r.consistencyP50(),
                    r.consistencyP99(), r.reserved(), r.rejected(), r.lost(), r.duplicated(), r.negativeStock()));
        }
        md.append("\n![throughput](throughput.png)\n![latency p50](latency-p50.png)\n![latency p99](latency-p99.png)\n"
                + "![time to consistency](consistency-p50.png)\n\nRaw data: `load.csv`.\n");
        Path report = dir.resolve("report.md");
        Files.writeString(report, md.toString());
        return report;
    }

    private static void chart(Path file, String title, String axis, List<Run> runs,
            java.util.function.ToDoubleFunction<Run> value) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (String mode : runs.stream().map(Run::mode).distinct().toList()) {
            XYSeries series = new XYSeries(mode);
            runs.stream().filter(r -> r.mode().equals(mode)).forEach(r -> series.add(r.concurrency(), value.applyAsDouble(r)));
            data.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, "concurrent clients", axis, data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogAxis clients = new LogAxis("concurrent clients");
        clients.setBase(2);
        clients.setStandardTickUnits(org.jfree.chart.axis.NumberAxis.createIntegerTickUnits());
        plot.setDomainAxis(clients);
        ((org.jfree.chart.renderer.xy.XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 800, 500);
    }
}
