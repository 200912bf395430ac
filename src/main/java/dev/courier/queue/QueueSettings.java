package dev.courier.queue;

import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The transactional queue's limits and windows, from MicroProfile Config (defaults in the README). Dependent, so its fields are read directly, not through a client proxy. */
@Dependent
class QueueSettings {

    @Inject
    @ConfigProperty(name = "courier.queue.max-queues", defaultValue = "100")
    int maxQueues;

    /**
     * The applications' databases that hold queues besides Courier's own: {@code name=jndi-name}, comma-separated,
     * each a datasource of the server (none by default). {@link QueueDatabases}.
     */
    @Inject
    @ConfigProperty(name = "courier.queue.databases")
    Optional<String> databases;

    @Inject
    @ConfigProperty(name = "courier.queue.max-payload-bytes", defaultValue = "262144")
    int maxPayloadBytes;

    @Inject
    @ConfigProperty(name = "courier.queue.idempotency-window", defaultValue = "PT24H")
    Duration idempotencyWindow;

    @Inject
    @ConfigProperty(name = "courier.queue.max-waiters", defaultValue = "1000")
    int maxWaiters;

    @Inject
    @ConfigProperty(name = "courier.queue.max-waiters-per-caller", defaultValue = "100")
    int maxWaitersPerCaller;

    /** Waiting receivers of one caller over all queues, per server: per queue alone, 100 queues would give 10 000. */
    @Inject
    @ConfigProperty(name = "courier.queue.max-waiters-per-caller-total", defaultValue = "200")
    int maxWaitersPerCallerTotal;

    @Inject
    @ConfigProperty(name = "courier.queue.max-receive", defaultValue = "1000")
    int maxReceive;

    @Inject
    @ConfigProperty(name = "courier.queue.max-wait", defaultValue = "PT60S")
    Duration maxWait;

    @Inject
    @ConfigProperty(name = "courier.queue.poll-interval-max", defaultValue = "PT1S")
    Duration pollIntervalMax;

    @Inject
    @ConfigProperty(name = "courier.queue.dead-retention", defaultValue = "P14D")
    Duration deadRetention;

    @Inject
    @ConfigProperty(name = "courier.queue.sweep-interval", defaultValue = "PT5S")
    Duration sweepInterval;

    /** Whether a committed send wakes receivers waiting on other servers (through the broker), not only here. */
    @Inject
    @ConfigProperty(name = "courier.queue.cross-server-wake-ups", defaultValue = "true")
    boolean crossServerWakeUps;

    /** The least time between two wake-ups of one queue sent to other servers; sends in between share one. */
    @Inject
    @ConfigProperty(name = "courier.queue.wake-up-interval", defaultValue = "PT0.02S")
    Duration wakeUpInterval;

    /**
     * How often a server announces itself on the wake-up topic; a server that heard no other for three of these
     * publishes no wake-ups (it is alone).
     */
    @Inject
    @ConfigProperty(name = "courier.queue.presence-interval", defaultValue = "PT5S")
    Duration presenceInterval;

    /** {@link #presenceInterval}, at least a second (a zero or negative setting must not stop the start). */
    Duration presence() {
        return presenceInterval.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : presenceInterval;
    }

    /**
     * Payload bytes one answer carries at most: a page of a message query ends early, with a next cursor; a receive
     * leases fewer messages, the rest staying deliverable for the next one (its first message is always leased).
     */
    @Inject
    @ConfigProperty(name = "courier.queue.max-page-bytes", defaultValue = "4194304")
    long maxPageBytes;

    /**
     * How long a server uses its copy of a queue's definition (settings and grants) before reading it again: the
     * bound on how late a change made on another server takes effect here if its notice is lost (see QueueSpecs).
     */
    @Inject
    @ConfigProperty(name = "courier.queue.settings-ttl", defaultValue = "PT1S")
    Duration settingsTtl;

    /** Most messages in one batch send or one batch acknowledgement. */
    @Inject
    @ConfigProperty(name = "courier.queue.max-batch", defaultValue = "1000")
    int maxBatch;
}
