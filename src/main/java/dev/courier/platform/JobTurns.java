package dev.courier.platform;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Turns of the jobs that run on one server at a time (the queue's sweeper, the reliable service's purge, the audit
 * retention): a job runs only on the server named in its row of {@code courier_job_lease}, taken when free or
 * expired and renewed by each run, until {@code ttl} of database time ({@link DatabaseClock}) from then. A leased
 * row rather than an advisory lock or a persistent timer: it works on both databases, a pooled connection never
 * carries a session lock, it frees itself when its server dies, and the row says who runs the job. A job's steps
 * must still be safe to overlap (an owner paused past its lease): the turn makes two runs rare, not impossible.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
public class JobTurns {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private DatabaseClock clock;

    @Inject
    @ConfigProperty(name = "courier.server.name", defaultValue = "courier")
    String serverName;

    @Inject
    @ConfigProperty(name = "courier.http.port", defaultValue = "9080")
    String httpPort;

    private String owner;

    @PostConstruct
    void name() {
        // Stable across restarts, so a restarted server takes its turns back at once instead of waiting for its
        // old leases to expire; unique per server, since two servers on one host cannot share a port.
        owner = serverName + "@" + host() + ":" + httpPort;
    }

    /** This server's name in the jobs' leases. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public String owner() {
        return owner;
    }

    /**
     * Takes or keeps {@code job}'s turn for this server until {@code ttl} from now, unless another server holds an
     * unexpired one. @return the database's time when the turn is this server's, else empty
     */
    public Optional<Instant> take(String job, Duration ttl) {
        return take(job, owner, ttl);
    }

    /** {@link #take(String, Duration)} on behalf of {@code owner} (tests play another server with it). */
    public Optional<Instant> take(String job, String owner, Duration ttl) {
        return take(job, owner, ttl, dataSource, clock.readings());
    }

    /**
     * {@link #take(String, Duration)} in another database of Courier's schema (a queue database: each has its
     * own turns), whose clock is {@code clock}.
     */
    public Optional<Instant> take(String job, Duration ttl, DataSource database, DatabaseClock.Readings clock) {
        return take(job, owner, ttl, database, clock);
    }

    private Optional<Instant> take(
            String job, String owner, Duration ttl, DataSource database, DatabaseClock.Readings clock) {
        try (Connection connection = database.getConnection();
                PreparedStatement take = connection.prepareStatement("UPDATE courier_job_lease SET owner = ?, "
                        + "expires_at = ? WHERE name = ? AND (owner = ? OR expires_at <= ?)")) {
            Instant now = clock.now(connection);
            take.setString(1, owner);
            take.setTimestamp(2, Columns.timestamp(now.plus(ttl)), Columns.utc());
            take.setString(3, job);
            take.setString(4, owner);
            take.setTimestamp(5, Columns.timestamp(now), Columns.utc());
            int rows = take.executeUpdate();
            if (rows == 0 && !known(connection, job)) {
                throw new IllegalStateException("no job named " + job + " in courier_job_lease");
            }
            return rows == 1 ? Optional.of(now) : Optional.empty();
        } catch (SQLException e) {
            throw new IllegalStateException("taking the turn of " + job + " failed", e);
        }
    }

    private static boolean known(Connection connection, String job) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT 1 FROM courier_job_lease WHERE name = ?")) {
            select.setString(1, job);
            try (var rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
