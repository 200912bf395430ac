package dev.courier.console;

import dev.courier.platform.Json;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Gauge;
import org.eclipse.microprofile.metrics.Metric;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Timer;

/**
 * {@code GET /api/console/metrics}: Courier's application metrics as JSON, for the console's overview and chart.
 * The same numbers as {@code /metrics} (gauges from the last refresh, counters of what committed on this server),
 * read from memory: no query. Admins only, behind Courier's login throttling ({@code /metrics} is on the
 * management port, without a password).
 */
@Path("console")
@ApplicationScoped // holds no request state, like the other resources
public class ConsoleResource {

    @Inject
    private MetricRegistry registry;

    /** {@code {"metrics": [{"name", "tags": {...}, "value"}]}}; a timer's value is its count, plus {@code sumSeconds}. */
    @RolesAllowed(Roles.ADMIN)
    @GET
    @Path("metrics")
    @Produces(MediaType.APPLICATION_JSON)
    public JsonObject metrics() {
        JsonArrayBuilder all = Json.createArrayBuilder();
        for (Map.Entry<MetricID, Metric> entry : registry.getMetrics().entrySet()) {
            JsonObjectBuilder json =
                    Json.createObjectBuilder().add("name", entry.getKey().getName());
            JsonObjectBuilder tags = Json.createObjectBuilder();
            entry.getKey().getTags().forEach(tags::add);
            json.add("tags", tags);
            Metric metric = entry.getValue();
            if (metric instanceof Counter counter) {
                json.add("value", counter.getCount());
            } else if (metric instanceof Gauge<?> gauge
                    && Double.isFinite(gauge.getValue().doubleValue())) {
                json.add("value", gauge.getValue().doubleValue());
            } else if (metric instanceof Timer timer) {
                json.add("value", timer.getCount())
                        .add("sumSeconds", timer.getElapsedTime().toNanos() / 1e9);
            } else {
                continue;
            }
            all.add(json);
        }
        return Json.createObjectBuilder().add("metrics", all).build();
    }
}
