package dev.courier.bench;

import dev.courier.audit.Audited;
import dev.courier.metrics.GaugeRefresh;
import dev.courier.platform.Json;
import dev.courier.platform.JsonRequest;
import dev.courier.platform.ProblemException;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code POST /api/bench/queue} {@code {"workers", "batch", "messages"}}: runs {@link QueueBenchmark} and answers
 * its figures. 404 unless {@code courier.bench.enabled=true}: a benchmark writes load into the database.
 */
@ApplicationScoped
@Path("bench")
@Produces(MediaType.APPLICATION_JSON)
public class BenchResource {

    @Inject
    @ConfigProperty(name = "courier.bench.enabled", defaultValue = "false")
    boolean enabled;

    @Inject
    private QueueBenchmark benchmark;

    @Inject
    private ReliableBenchmark reliable;

    @Inject
    private GaugeRefresh gauges;

    @RolesAllowed(Roles.ADMIN)
    @Audited("bench.queue")
    @POST
    @Path("queue")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject queue(JsonValue body) throws Exception {
        requireEnabled();
        JsonRequest request = JsonRequest.of(body);
        QueueBenchmark.Result result = benchmark.run(
                request.integer("workers", 1, 64).orElse(1),
                request.integer("batch", 1, 1000).orElse(1),
                request.integer("messages", 1, 1_000_000).orElse(1000));
        return Json.createObjectBuilder()
                .add("workers", result.workers())
                .add("batch", result.batch())
                .add("send", phase(result.send()))
                .add("receiveAndAck", phase(result.receiveAndAck()))
                .build();
    }

    /** {@code POST /api/bench/queue-cycle} {@code {"workers", "batch", "messages"}}: {@link QueueBenchmark#cycle}. */
    @RolesAllowed(Roles.ADMIN)
    @Audited("bench.queue-cycle")
    @POST
    @Path("queue-cycle")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject queueCycle(JsonValue body) throws Exception {
        requireEnabled();
        JsonRequest request = JsonRequest.of(body);
        return phase(benchmark.cycle(
                        request.integer("workers", 1, 64).orElse(1),
                        request.integer("batch", 1, 1000).orElse(1),
                        request.integer("messages", 1, 1_000_000).orElse(1000)))
                .build();
    }

    /**
     * {@code POST /api/bench/reliable} {@code {"topic", "producer", "producers", "messages", "confirm"?,
     * "checkBackSeconds"?}}: runs {@link ReliableBenchmark}.
     */
    @RolesAllowed(Roles.ADMIN)
    @Audited("bench.reliable")
    @POST
    @Path("reliable")
    @Consumes(MediaType.APPLICATION_JSON)
    public JsonObject reliable(JsonValue body) throws Exception {
        requireEnabled();
        JsonRequest request = JsonRequest.of(body);
        QueueBenchmark.Phase phase = reliable.run(
                request.string("topic").orElseThrow(() -> ProblemException.invalid("'topic' is required")),
                request.string("producer").orElseThrow(() -> ProblemException.invalid("'producer' is required")),
                request.integer("producers", 1, 64).orElse(1),
                request.integer("messages", 1, 1_000_000).orElse(1000),
                !request.value("confirm").map(JsonValue.FALSE::equals).orElse(false),
                request.seconds("checkBackSeconds", 0, 86_400).orElse(java.time.Duration.ofSeconds(10)));
        return phase(phase).build();
    }

    /**
     * {@code POST /api/bench/metrics-refresh}: reads and publishes every gauge now (what the metrics timer does)
     * and answers how long it took, {@code {"millis"}}: the database's share of the metrics, which a scrape
     * does not pay.
     */
    @RolesAllowed(Roles.ADMIN)
    @Audited("bench.metrics-refresh")
    @POST
    @Path("metrics-refresh")
    public JsonObject metricsRefresh() {
        requireEnabled();
        long start = System.nanoTime();
        gauges.refresh();
        return Json.createObjectBuilder()
                .add("millis", (System.nanoTime() - start) / 1e6)
                .build();
    }

    private void requireEnabled() {
        if (!enabled) {
            throw new ProblemException(404, "Not found", "benchmarks are disabled (courier.bench.enabled=false)");
        }
    }

    private static JsonObjectBuilder phase(QueueBenchmark.Phase phase) {
        return Json.createObjectBuilder()
                .add("messages", phase.messages())
                .add("seconds", phase.seconds())
                .add("perSecond", phase.perSecond())
                .add("p50Millis", phase.latencies().percentileMillis(50))
                .add("p99Millis", phase.latencies().percentileMillis(99));
    }
}
