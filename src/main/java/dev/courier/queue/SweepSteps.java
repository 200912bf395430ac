package dev.courier.queue;

import static dev.courier.queue.MessageStore.timestamp;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The sweeper's steps, each a short transaction of its own: a sweep never holds locks across queues, and a step
 * that fails undoes only itself. Times are the database's ({@link MessageStore#now}).
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
class SweepSteps {

    static final String JOB = "queue.sweeper";

    @Inject
    private MessageStore store;

    /**
     * Takes or keeps the sweeper's turn: the lease row names {@code owner} until {@code ttl} from now, unless
     * another server holds an unexpired lease. @return the database's time when the turn is ours, else empty
     */
    Optional<Instant> takeTurn(String owner, Duration ttl) {
        try (Connection connection = store.connection();
                PreparedStatement take = connection.prepareStatement("UPDATE courier_job_lease SET owner = ?, "
                        + "expires_at = ? WHERE name = ? AND (owner = ? OR expires_at <= ?)")) {
            Instant now = store.now(connection);
            take.setString(1, owner);
            take.setTimestamp(2, timestamp(now.plus(ttl)), Columns.utc());
            take.setString(3, JOB);
            take.setString(4, owner);
            take.setTimestamp(5, timestamp(now), Columns.utc());
            return take.executeUpdate() == 1 ? Optional.of(now) : Optional.empty();
        } catch (SQLException e) {
            throw new IllegalStateException("taking the sweeper's turn failed", e);
        }
    }

    List<QueueSpec> queues() {
        try (Connection connection = store.connection()) {
            return store.queues(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("listing queues failed", e);
        }
    }

    int exhaust(QueueSpec queue, int limit) {
        try (Connection connection = store.connection()) {
            return store.exhaust(connection, queue, store.now(connection), limit);
        } catch (SQLException e) {
            throw new IllegalStateException("moving exhausted messages of " + queue.name() + " failed", e);
        }
    }

    int purgeDead(Duration retention, int limit) {
        try (Connection connection = store.connection()) {
            return store.purgeDead(connection, store.now(connection).minus(retention), limit);
        } catch (SQLException e) {
            throw new IllegalStateException("purging dead messages failed", e);
        }
    }

    int forgetKeys(int limit) {
        try (Connection connection = store.connection()) {
            return store.forgetKeys(connection, store.now(connection), limit);
        } catch (SQLException e) {
            throw new IllegalStateException("forgetting idempotency keys failed", e);
        }
    }

    /** Records a finished sweep and forgets those older than {@code keep}. @return the run as recorded */
    Sweeper.Run record(String owner, Instant started, int movedDead, int purged, Duration keep) {
        try (Connection connection = store.connection()) {
            Instant finished = store.now(connection);
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO courier_sweep_run (owner, "
                    + "started_at, finished_at, moved_dead, purged) VALUES (?, ?, ?, ?, ?)");
                    PreparedStatement prune = connection.prepareStatement(
                            "DELETE FROM courier_sweep_run WHERE started_at < ?")) {
                insert.setString(1, owner);
                insert.setTimestamp(2, timestamp(started), Columns.utc());
                insert.setTimestamp(3, timestamp(finished), Columns.utc());
                insert.setInt(4, movedDead);
                insert.setInt(5, purged);
                insert.executeUpdate();
                prune.setTimestamp(1, timestamp(finished.minus(keep)), Columns.utc());
                prune.executeUpdate();
            }
            return new Sweeper.Run(owner, started, finished, movedDead, purged);
        } catch (SQLException e) {
            throw new IllegalStateException("recording a sweep failed", e);
        }
    }
}
