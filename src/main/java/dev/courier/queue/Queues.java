package dev.courier.queue;

import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Queue definitions: create, update, drop, list. Each call joins the caller's transaction ({@code REQUIRED}).
 * At most {@code courier.queue.max-queues} queues exist (100 by default), also when several servers create
 * queues at once.
 */
@Stateless
public class Queues {

    private static final Logger LOG = Logger.getLogger(Queues.class.getName());

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueLookup lookup;

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
        return define(spec, keepGrants, null);
    }

    /**
     * {@link #define(QueueSpec, boolean)} in the queue database named {@code database} ({@code courier.queue.databases};
     * {@code null}: where the queue is, or Courier's own for a new one). A queue's name is unique across the
     * databases, and a queue stays in the database it was made in.
     *
     * @throws ProblemException 400 for a database that is not configured; 409 when the queue is in another one
     */
    public boolean define(QueueSpec spec, boolean keepGrants, String database) {
        Optional<QueueDatabase> home = databases.find(spec.name());
        QueueDatabase target = database == null
                ? home.orElse(databases.courier())
                : databases
                        .named(database)
                        .orElseThrow(() -> ProblemException.invalid(
                                "there is no queue database " + database + "; the server has " + databases.all()));
        if (home.isPresent() && home.get() != target) {
            throw new ProblemException(
                    409,
                    "Queue in another database",
                    "queue " + spec.name() + " is in the database " + home.get().name()
                            + "; drop it there first to make it in " + target.name());
        }
        try (Connection connection = target.connection()) {
            Instant now = target.now(connection);
            if (store.queue(target, connection, spec.name()).isPresent()) {
                store.update(connection, spec, now, keepGrants);
                return false;
            }
            create(target, connection, spec, now);
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("defining queue " + spec.name() + " failed", e);
        }
    }

    private void create(QueueDatabase target, Connection connection, QueueSpec spec, Instant now) throws SQLException {
        // Creations wait for each other on Courier's database, on every server, so the count sees every queue
        // created before and a name is made in one database only; then on the target's, where the SQL API's
        // define_queue waits too.
        try (Connection courier = databases.courier().connection()) {
            store.lockDefinitions(courier);
        }
        List<QueueDatabase> others =
                databases.all().stream().filter(d -> d != target).toList();
        if (!others.isEmpty()) {
            if (target != databases.courier()) {
                store.lockDefinitions(connection);
            }
            if (lookup.holding(others, spec.name()).isPresent()) { // made in another database meanwhile
                throw concurrentlyCreated(spec.name());
            }
        }
        // The target's own count in this transaction (it may have made queues there already), the others' outside.
        int existing = store.count(connection) + (others.isEmpty() ? 0 : lookup.count(others));
        if (existing >= settings.maxQueues) {
            throw QueueLimitException.tooManyQueues(settings.maxQueues);
        }
        try {
            store.insert(connection, spec, now);
            databases.made(spec.name(), target);
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) { // another caller created it between our check and insert
                throw concurrentlyCreated(spec.name());
            }
            throw e;
        }
    }

    private static ProblemException concurrentlyCreated(QueueName name) {
        return new ProblemException(
                409, "Concurrent change", "queue " + name + " was created by a concurrent request; retry to update it");
    }

    /**
     * Drops the queue with all its messages (live and dead) and idempotency keys.
     *
     * @throws QueueNotFoundException 404 when there is no such queue
     */
    public void drop(QueueName name) {
        QueueDatabase home = databases.of(name);
        try (Connection connection = home.connection()) {
            // Read, not this server's copy: another server may have dropped it already.
            store.queue(home, connection, name).orElseThrow(() -> new QueueNotFoundException(name));
            store.delete(connection, name);
            databases.forget(name);
        } catch (SQLException e) {
            throw new IllegalStateException("dropping queue " + name + " failed", e);
        }
    }

    /** @throws QueueNotFoundException 404 when there is no such queue */
    public void require(QueueName name) {
        try (Connection connection = databases.of(name).connection()) {
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
        List<QueueInfo> all = new ArrayList<>();
        for (QueueDatabase database : only.isPresent() ? List.of(databases.of(only.get())) : databases.all()) {
            // planned: under churn the planner would count by scanning
            try (Connection connection = database.planned()) {
                all.addAll(store.stats(database, connection, only, database.now(connection)));
            } catch (SQLException | RuntimeException e) {
                if (only.isPresent() || database == databases.courier()) {
                    throw new IllegalStateException("reading the queues of database " + database.name() + " failed", e);
                }
                // An application's database that is down hides its queues from the list, not Courier's.
                LOG.log(
                        Level.WARNING,
                        "queue database " + database.name() + " cannot be read; its queues are not listed",
                        e);
            }
        }
        all.sort(Comparator.comparing(info -> info.spec().name().value()));
        return all;
    }
}
