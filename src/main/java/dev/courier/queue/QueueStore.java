package dev.courier.queue;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.access.Action;
import dev.courier.access.Caller;
import dev.courier.access.Grants;
import dev.courier.access.NotGrantedException;
import dev.courier.platform.Backoff;
import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
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
 * The rows that describe queues rather than messages: definitions ({@code courier_queue}) with their counts,
 * and the rows that servers share to take turns ({@code courier_job_lease}, {@code courier_sweep_run}). Every
 * method runs in the caller's transaction on the connection it is given; none decides policy.
 */
@ApplicationScoped
class QueueStore {

    private static final String COLUMNS =
            "name, lease_ms, max_attempts, backoff_initial_ms, backoff_multiplier, " + "backoff_max_ms, grants";
    // Every aggregate reads an index of its own (the due index for live rows, the dead index), never the table:
    // run on QueueDatabase.planned, or a queue table that looks small is scanned whole (168 ms under churn).
    private static final String STATS = "SELECT q.name, q.lease_ms, q.max_attempts, q.backoff_initial_ms, "
            + "q.backoff_multiplier, q.backoff_max_ms, q.grants, "
            + "(SELECT COUNT(*) FROM courier_message m WHERE m.queue = q.name AND m.state = 'READY'), "
            + "(SELECT COUNT(*) FROM courier_message m WHERE m.queue = q.name AND m.state = 'DEAD'), "
            + "(SELECT MIN(m.deliver_at) FROM courier_message m WHERE m.queue = q.name AND m.state = 'READY'), "
            + "(SELECT COUNT(*) FROM courier_message m WHERE m.queue = q.name AND m.state = 'READY' "
            + "AND m.deliver_at <= ?) "
            + "FROM courier_queue q";

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueSpecs specs;

    /** A queue's settings (this server's copy, or read) and the database's time, at the start of an operation. */
    record QueueNow(QueueSpec spec, Instant now) {}

    List<QueueSpec> queues(Connection connection) throws SQLException {
        try (PreparedStatement select =
                        connection.prepareStatement("SELECT " + COLUMNS + " FROM courier_queue " + "ORDER BY name");
                ResultSet rows = select.executeQuery()) {
            List<QueueSpec> queues = new ArrayList<>();
            while (rows.next()) {
                queues.add(spec(rows, 7));
            }
            return queues;
        }
    }

    /** The queue's definition in {@code database}, read now, with the database's time. */
    Optional<QueueNow> queue(QueueDatabase database, Connection connection, QueueName name) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement(database.dialect().selectQueue())) {
            select.setString(1, name.value());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next()
                        ? Optional.of(new QueueNow(spec(rows, 8), database.time(instant(rows, 7))))
                        : Optional.empty();
            }
        }
    }

    /**
     * The queue's settings and the time, the settings from this server's recent copy when it has one
     * ({@link QueueSpecs}). Code that changes a definition reads it with {@link #queue} instead. {@code connection}
     * is from the queue's database ({@link QueueDatabases#of}).
     *
     * @throws QueueNotFoundException 404 when it does not exist
     */
    QueueNow requireQueue(Connection connection, QueueName name) throws SQLException {
        QueueDatabase database = databases.of(name); // where connection is from: remembered, no query
        Optional<QueueSpec> copy = specs.cached(name);
        if (copy.isPresent()) {
            return new QueueNow(copy.get(), database.now(connection));
        }
        long before = specs.beforeRead();
        QueueNow read = queue(database, connection, name).orElseThrow(() -> {
            databases.forget(name); // dropped there since: it may live elsewhere now
            return new QueueNotFoundException(name);
        });
        specs.remember(read.spec(), before);
        return read;
    }

    /**
     * {@link #requireQueue(Connection, QueueName)} for {@code caller} about to {@code action} on it: read with the
     * settings, the queue's grants cost no query of their own.
     *
     * @throws NotGrantedException 403 when the queue's grants do not allow the caller
     */
    QueueNow requireQueue(Connection connection, QueueName name, Caller caller, Action action) throws SQLException {
        QueueNow queue = requireQueue(connection, name);
        queue.spec().grants().require(caller, action, "queue " + name);
        return queue;
    }

    /** A definition from its first six columns and its grants at {@code grantsColumn}. */
    private static QueueSpec spec(ResultSet rows, int grantsColumn) throws SQLException {
        return new QueueSpec(
                QueueName.of(rows.getString(1)),
                Duration.ofMillis(rows.getLong(2)),
                rows.getInt(3),
                new Backoff(Duration.ofMillis(rows.getLong(4)), rows.getDouble(5), Duration.ofMillis(rows.getLong(6))),
                Grants.decode(rows.getString(grantsColumn)));
    }

    // --- definitions

    void insert(Connection connection, QueueSpec spec, Instant now) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO courier_queue (lease_ms, "
                + "max_attempts, backoff_initial_ms, backoff_multiplier, backoff_max_ms, created_at, updated_at, "
                + "name, grants) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            bind(insert, spec);
            insert.setTimestamp(6, timestamp(now), Columns.utc());
            insert.setTimestamp(7, timestamp(now), Columns.utc());
            insert.setString(8, spec.name().value());
            insert.setString(9, spec.grants().encode());
            insert.executeUpdate();
        }
    }

    /** Updates the settings, and the grants too unless {@code keepGrants}. */
    void update(Connection connection, QueueSpec spec, Instant now, boolean keepGrants) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE courier_queue SET lease_ms = ?, "
                + "max_attempts = ?, backoff_initial_ms = ?, backoff_multiplier = ?, backoff_max_ms = ?, "
                + "updated_at = ?" + (keepGrants ? "" : ", grants = ?") + " WHERE name = ?")) {
            bind(update, spec);
            update.setTimestamp(6, timestamp(now), Columns.utc());
            if (!keepGrants) {
                update.setString(7, spec.grants().encode());
            }
            update.setString(keepGrants ? 7 : 8, spec.name().value());
            update.executeUpdate();
        }
        specs.changedOnCommit(spec.name());
    }

    /** Deletes the queue, its idempotency keys and (by {@code ON DELETE CASCADE}) its messages. */
    void delete(Connection connection, QueueName name) throws SQLException {
        try (PreparedStatement keys =
                        connection.prepareStatement("DELETE FROM courier_idempotency_key WHERE queue = ?");
                PreparedStatement queue = connection.prepareStatement("DELETE FROM courier_queue WHERE name = ?")) {
            keys.setString(1, name.value());
            keys.executeUpdate();
            queue.setString(1, name.value());
            queue.executeUpdate();
        }
        specs.changedOnCommit(name);
    }

    /**
     * Makes creations of queues wait for each other until this transaction ends, on every server: locks the
     * {@code queue.definitions} row, so a count read after it sees every queue created before.
     */
    void lockDefinitions(Connection connection) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "UPDATE courier_job_lease SET owner = owner WHERE name = 'queue.definitions'")) {
            lock.executeUpdate();
        }
    }

    int count(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM courier_queue");
                ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** Queues with their depth, how many are deliverable now, dead count and how long the longest-waiting deliverable message has been due. */
    List<QueueInfo> stats(QueueDatabase database, Connection connection, Optional<QueueName> only, Instant now)
            throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement(STATS + (only.isPresent() ? " WHERE q.name = ?" : " ORDER BY q.name"))) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
            if (only.isPresent()) {
                select.setString(2, only.get().value());
            }
            List<QueueInfo> queues = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    Instant oldest = instant(rows, 10);
                    queues.add(new QueueInfo(
                            spec(rows, 7),
                            database.name(),
                            rows.getLong(8),
                            rows.getLong(11),
                            rows.getLong(9),
                            Optional.ofNullable(oldest)
                                    .filter(o -> !o.isAfter(now))
                                    .map(o -> Duration.between(o, now))));
                }
            }
            return queues;
        }
    }

    private static void bind(PreparedStatement statement, QueueSpec spec) throws SQLException {
        statement.setLong(1, spec.lease().toMillis());
        statement.setInt(2, spec.maxAttempts());
        statement.setLong(3, spec.backoff().initial().toMillis());
        statement.setDouble(4, spec.backoff().multiplier());
        statement.setLong(5, spec.backoff().max().toMillis());
    }

    // --- turns

    /** Records a sweep and forgets those that started before {@code forgetBefore}. */
    void recordSweep(Connection connection, SweepRun run, Instant forgetBefore) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO courier_sweep_run (owner, "
                        + "started_at, finished_at, moved_dead, purged) VALUES (?, ?, ?, ?, ?)");
                PreparedStatement prune =
                        connection.prepareStatement("DELETE FROM courier_sweep_run WHERE started_at < ?")) {
            insert.setString(1, run.owner());
            insert.setTimestamp(2, timestamp(run.started()), Columns.utc());
            insert.setTimestamp(3, timestamp(run.finished()), Columns.utc());
            insert.setInt(4, run.movedDead());
            insert.setInt(5, run.purged());
            insert.executeUpdate();
            prune.setTimestamp(1, timestamp(forgetBefore), Columns.utc());
            prune.executeUpdate();
        }
    }
}
