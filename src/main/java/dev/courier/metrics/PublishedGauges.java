package dev.courier.metrics;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;

/** Gauges whose values are the last published readings: registered when a reading first appears, removed when it goes. */
final class PublishedGauges {

    private final MetricRegistry registry;
    private volatile Map<MetricID, Double> values = Map.of();

    PublishedGauges(MetricRegistry registry) {
        this.registry = registry;
    }

    synchronized void publish(Map<MetricID, Double> readings) {
        Set<MetricID> before = new HashSet<>(values.keySet());
        values = Map.copyOf(readings);
        for (MetricID id : readings.keySet()) {
            if (!before.remove(id)) {
                registry.gauge(id.getName(), () -> values.getOrDefault(id, Double.NaN), id.getTagsAsArray());
            }
        }
        before.forEach(registry::remove);
    }
}
