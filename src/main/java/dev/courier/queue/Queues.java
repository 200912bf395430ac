package dev.courier.queue;

import static dev.courier.queue.MessageStore.instant;
import static dev.courier.queue.MessageStore.timestamp;

import dev.courier.platform.Columns;
import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Queue definitions: create, update, drop, list. Each call joins the caller's transaction ({@code REQUIRED}).
 * At most {@code courier.queue.max-queues} queues exist (100 by default).
 */
@Stateless
public class Queues {

    // Every aggregate reads an index of its own (the due index for live rows, the dead index), never the table.
    private static final String STATS = "SELECT q.name, q.lease_ms, q.max_attempts, q.backoff_initial_ms, "
            + "q.backoff_multiplier, q.backoff_max_ms, "
            + "(SELECT COUNT(*) FROM courier_message m WHERE m.queue = q.name AND m.state = 'READY'), "
            + "(SELECT COUNT(*) FROM courier_message m WHERE m.queue = q.name AND m.state = 'DEAD'), "
            + "(SELECT MIN(m.deliver_at) FROM courier_message m WHERE m.queue = q.name AND m.state = 'READY') "
            + "FROM courier_queue q";

    @Inject
    private MessageStore store;

    @Inject
    private QueueSettings settings;

    /**
     * Creates the queue, or updates its settings if it exists; messages already queued keep their state and
     * follow the new settings from their next delivery on.
     *
     * @return true when the queue was created
     * @throws QueueLimitException 409 when creating it would exceed {@code courier.queue.max-queues}
     * @throws ProblemException 409 when a concurrent request created the same queue first
     */
    public boolean define(QueueSpec spec) {
        try (Connection connection = store.connection()) {
            Instant now = store.now(connection);
            boolean exists = store.queue(connection, spec.name()).isPresent();
            if (exists) {
                try (PreparedStatement update = connection.prepareStatement("UPDATE courier_queue SET lease_ms = ?, "
                        + "max_attempts = ?, backoff_initial_ms = ?, backoff_multiplier = ?, backoff_max_ms = ?, "
                        + "updated_at = ? WHERE name = ?")) {
                    bind(update, spec);
                    update.setTimestamp(6, timestamp(now), Columns.utc());
                    update.setString(7, spec.name().value());
                    update.executeUpdate();
                }
                return false;
            }
            // Creations queue up on one row, on every server, until this transaction ends: the count below then
            // sees every queue created before, so concurrent creates on several servers cannot pass the limit.
            try (PreparedStatement lock = connection.prepareStatement(
                    "UPDATE courier_job_lease SET owner = owner WHERE name = 'queue.definitions'")) {
                lock.executeUpdate();
            }
            if (count(connection) >= settings.maxQueues) {
                throw QueueLimitException.tooManyQueues(settings.maxQueues);
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO courier_queue (lease_ms, "
                    + "max_attempts, backoff_initial_ms, backoff_multiplier, backoff_max_ms, created_at, updated_at, "
                    + "name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                bind(insert, spec);
                insert.setTimestamp(6, timestamp(now), Columns.utc());
                insert.setTimestamp(7, timestamp(now), Columns.utc());
                insert.setString(8, spec.name().value());
                insert.executeUpdate();
            } catch (SQLException e) {
                if ("23505".equals(e.getSQLState())) { // another caller created it between our check and insert
                    throw new ProblemException(409, "Concurrent change",
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
        try (Connection connection = store.connection()) {
            store.requireQueue(connection, name);
            try (PreparedStatement keys = connection.prepareStatement(
                    "DELETE FROM courier_idempotency_key WHERE queue = ?");
                    PreparedStatement queue = connection.prepareStatement("DELETE FROM courier_queue WHERE name = ?")) {
                keys.setString(1, name.value());
                keys.executeUpdate();
                queue.setString(1, name.value()); // its messages go by ON DELETE CASCADE
                queue.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("dropping queue " + name + " failed", e);
        }
    }

    /** @throws QueueNotFoundException 404 when there is no such queue */
    public void require(QueueName name) {
        try (Connection connection = store.connection()) {
            store.requireQueue(connection, name);
        } catch (SQLException e) {
            throw new IllegalStateException("reading queue " + name + " failed", e);
        }
    }

    /** The queue with its depth, dead count and oldest message age. @throws QueueNotFoundException 404 */
    public QueueInfo get(QueueName name) {
        return query(" WHERE q.name = ?", name).stream().findFirst().orElseThrow(() -> new QueueNotFoundException(name));
    }

    /** All queues, by name. */
    public List<QueueInfo> list() {
        return query(" ORDER BY q.name", null);
    }

    private List<QueueInfo> query(String where, QueueName name) {
        try (Connection connection = store.connection();
                PreparedStatement select = connection.prepareStatement(STATS + where)) {
            Instant now = store.now(connection);
            if (name != null) {
                select.setString(1, name.value());
            }
            List<QueueInfo> queues = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    Instant oldest = instant(rows, 9);
                    queues.add(new QueueInfo(MessageStore.spec(rows), rows.getLong(7), rows.getLong(8),
                            Optional.ofNullable(oldest).filter(o -> !o.isAfter(now))
                                    .map(o -> Duration.between(o, now))));
                }
            }
            return queues;
        } catch (SQLException e) {
            throw new IllegalStateException("reading queues failed", e);
        }
    }

    private static int count(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM courier_queue");
                ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static void bind(PreparedStatement statement, QueueSpec spec) throws SQLException {
        statement.setLong(1, spec.lease().toMillis());
        statement.setInt(2, spec.maxAttempts());
        statement.setLong(3, spec.backoff().initial().toMillis());
        statement.setDouble(4, spec.backoff().multiplier());
        statement.setLong(5, spec.backoff().max().toMillis());
    }
}
