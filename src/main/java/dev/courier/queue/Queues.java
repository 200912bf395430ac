package dev.courier.queue;

import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Queue definitions: create, update, drop, list. Each call joins the caller's transaction ({@code REQUIRED}).
 * At most {@code courier.queue.max-queues} queues exist (100 by default), also when several servers create
 * queues at once.
 */
@Stateless
public class Queues {

    @Inject
    private QueueDatabase database;

    @Inject
    private QueueStore store;

    @Inject
    private QueueSettings settings;

    /**
     * Creates the queue, or updates its settings (grants included) if it exists; messages already queued keep
     * their state and follow the new settings from their next delivery on.
     *
     * @return true when the queue was created
     * @throws QueueLimitException 409 when creating it would exceed {@code courier.queue.max-queues}
     * @throws ProblemException 409 when a concurrent request created the same queue first
     */
    public boolean define(QueueSpec spec) {
        return define(spec, false);
    }

    /**
     * {@link #define(QueueSpec)}, where {@code keepGrants} leaves an existing queue's grants as they are (a new
     * queue gets the spec's): a definition that does not mention grants must not open a queue by accident.
     */
    public boolean define(QueueSpec spec, boolean keepGrants) {
        try (Connection connection = database.connection()) {
            Instant now = database.now(connection);
            if (store.queue(connection, spec.name()).isPresent()) {
                store.update(connection, spec, now, keepGrants);
                return false;
            }
            // Creations wait for each other here, on every server, so the count sees every queue created before.
            store.lockDefinitions(connection);
            if (store.count(connection) >= settings.maxQueues) {
                throw QueueLimitException.tooManyQueues(settings.maxQueues);
            }
            try {
                store.insert(connection, spec, now);
            } catch (SQLException e) {
                if ("23505".equals(e.getSQLState())) { // another caller created it between our check and insert
                    throw new ProblemException(
                            409,
                            "Concurrent change",
                            "queue " + spec.name() + " was created by a concurrent request; retry to update it");
                }
                throw e;
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("defining queue " + spec.name() + " failed", e);
        }
    }

    /**
     * Drops the queue with all its messages (live and dead) and idempotency keys.
     *
     * @throws QueueNotFoundException 404 when there is no such queue
     */
    public void drop(QueueName name) {
        try (Connection connection = database.connection()) {
            // Read, not this server's copy: another server may have dropped it already.
            store.queue(connection, name).orElseThrow(() -> new QueueNotFoundException(name));
            store.delete(connection, name);
        } catch (SQLException e) {
            throw new IllegalStateException("dropping queue " + name + " failed", e);
        }
    }

    /** @throws QueueNotFoundException 404 when there is no such queue */
    public void require(QueueName name) {
        try (Connection connection = database.connection()) {
            store.requireQueue(connection, name);
        } catch (SQLException e) {
            throw new IllegalStateException("reading queue " + name + " failed", e);
        }
    }

    /** The queue with its depth, dead count and oldest message age. @throws QueueNotFoundException 404 */
    public QueueInfo get(QueueName name) {
        return stats(Optional.of(name)).stream().findFirst().orElseThrow(() -> new QueueNotFoundException(name));
    }

    /** All queues, by name. */
    public List<QueueInfo> list() {
        return stats(Optional.empty());
    }

    private List<QueueInfo> stats(Optional<QueueName> only) {
        try (Connection connection = database.planned()) { // under churn the planner would count by scanning
            return store.stats(connection, only, database.now(connection));
        } catch (SQLException e) {
            throw new IllegalStateException("reading queues failed", e);
        }
    }
}
