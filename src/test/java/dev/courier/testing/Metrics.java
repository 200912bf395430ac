package dev.courier.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a server's {@code /metrics} (Prometheus text) on its management port, as a monitoring system scrapes it. */
public final class Metrics {

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final Http http;

    /** The test server's metrics. */
    public Metrics() {
        this(Http.management());
    }

    /** The metrics of the server whose management port {@code management} calls. */
    public Metrics(Http management) {
        this.http = management;
    }

    /** The application's metrics, as text. */
    public String scrape() {
        Http.Response scraped = http.get("metrics?scope=application");
        assertEquals(200, scraped.status(), scraped::toString);
        return scraped.body();
    }

    /** The value of {@code metric} with (at least) these labels, as name, value pairs; fails when absent. */
    public double value(String metric, String... labels) {
        Map<String, String> wanted = new HashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            wanted.put(labels[i], labels[i + 1]);
        }
        String text = scrape();
        return find(text, metric, wanted)
                .orElseThrow(() -> new AssertionError("no " + metric + wanted + " in\n"
                        + text.lines().filter(l -> l.startsWith("courier_")).reduce("", (a, b) -> a + b + "\n")));
    }

    /** Whether {@code metric} with these labels is published now. */
    public boolean has(String metric, String... labels) {
        Map<String, String> wanted = new HashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            wanted.put(labels[i], labels[i + 1]);
        }
        return find(scrape(), metric, wanted).isPresent();
    }

    /** The value of the first sample of {@code metric} in {@code text} whose labels include {@code labels}. */
    public static OptionalDouble find(String text, String metric, Map<String, String> labels) {
        for (String line : text.lines().toList()) {
            if (!line.startsWith(metric + "{") && !line.startsWith(metric + " ")) {
                continue;
            }
            int close = line.lastIndexOf('}');
            Map<String, String> found = new HashMap<>();
            Matcher label = LABEL.matcher(close < 0 ? "" : line.substring(0, close));
            while (label.find()) {
                found.put(label.group(1), label.group(2));
            }
            if (found.entrySet().containsAll(labels.entrySet())) {
                return OptionalDouble.of(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
            }
        }
        return OptionalDouble.empty();
    }
}
