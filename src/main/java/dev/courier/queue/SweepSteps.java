package dev.courier.queue;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The sweeper's steps, each a short transaction of its own: a sweep never holds locks across queues, and a step
 * that fails undoes only itself. Each works in one queue database; times are that database's
 * ({@link QueueDatabase#now}).
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
class SweepSteps {

    @Inject
    private QueueMeters meters;

    @Inject
    private QueueStore queues;

    @Inject
    private MessageStore store;

    List<QueueSpec> queues(QueueDatabase database) {
        try (Connection connection = database.connection()) {
            return queues.queues(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("listing the queues of database " + database.name() + " failed", e);
        }
    }

    int exhaust(QueueDatabase database, QueueSpec queue, int limit) {
        try (Connection connection = database.planned()) {
            int dead = store.exhaust(connection, queue, database.now(connection), limit);
            meters.onCommit(QueueMeters.Event.DEAD, queue.name(), dead);
            return dead;
        } catch (SQLException e) {
            throw new IllegalStateException("moving exhausted messages of " + queue.name() + " failed", e);
        }
    }

    int purgeDead(QueueDatabase database, Duration retention, int limit) {
        try (Connection connection = database.connection()) {
            return store.purgeDead(connection, database.now(connection).minus(retention), limit);
        } catch (SQLException e) {
            throw new IllegalStateException("purging dead messages failed", e);
        }
    }

    int forgetKeys(QueueDatabase database, int limit) {
        try (Connection connection = database.planned()) {
            return store.forgetKeys(connection, database.now(connection), limit);
        } catch (SQLException e) {
            throw new IllegalStateException("forgetting idempotency keys failed", e);
        }
    }

    /** Records a finished sweep and forgets those older than {@code keep}. @return the run as recorded */
    SweepRun record(QueueDatabase database, String owner, Instant started, int movedDead, int purged, Duration keep) {
        try (Connection connection = database.connection()) {
            SweepRun run = new SweepRun(owner, started, database.now(connection), movedDead, purged);
            queues.recordSweep(connection, run, run.finished().minus(keep));
            return run;
        } catch (SQLException e) {
            throw new IllegalStateException("recording a sweep failed", e);
        }
    }
}
