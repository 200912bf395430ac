package dev.courier.testing;

import dev.courier.client.ReliableConsumer;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * What the two test MDBs ({@link LocalInboxListener}, {@link XaInboxListener}) share: their topics, their
 * subscriber, and the effect they apply, a row of test_effect per handled message. A payload
 * {@code {"fail": n}} makes the first n handlings of that message throw, after the effect's row was written (so
 * only a rollback keeps it out). Apps subscribes both at start-up, before the MDBs' activation specs start.
 */
public final class InboxListeners {

    /** The topic of the bean-managed MDB: the inbox and the effect in one local transaction, no 2PC. */
    public static final String LOCAL = "mdb-local";
    /** The topic of the container-managed MDB: one XA transaction over the receive and the database. */
    public static final String XA = "mdb-xa";
    /** The one subscriber of both topics; its queues are {@code mdb-local.sink} and {@code mdb-xa.sink}. */
    public static final String SUBSCRIBER = "sink";

    /** When each message's effect was applied (System.nanoTime, just before its commit), for the benchmark. */
    static final Map<String, Long> APPLIED = new ConcurrentHashMap<>();

    /** Handlings per message id (failed ones included), for the failure payloads. */
    private static final Map<String, Integer> HANDLED = new ConcurrentHashMap<>();

    private InboxListeners() {}

    /** The handler of both MDBs: the effect's row, then the failure the payload asks for. */
    static ReliableConsumer.Handler effect(DataSource dataSource) {
        return (messageId, payload) -> {
            recordEffect(dataSource, messageId, SUBSCRIBER);
            int handled = HANDLED.merge(messageId, 1, Integer::sum);
            if (handled <= failures(payload)) {
                throw new IllegalStateException("the effect failed (test, handling " + handled + ")");
            }
            APPLIED.put(messageId, System.nanoTime());
        };
    }

    /** The business effect of the tests' consumers: a row of test_effect, in the caller's transaction. */
    static void recordEffect(DataSource dataSource, String messageId, String subscriber) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert =
                        c.prepareStatement("INSERT INTO test_effect (message_id, subscriber) VALUES (?, ?)")) {
            insert.setString(1, messageId);
            insert.setString(2, subscriber);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Copies the inbox skipped, per message id. */
    private static final Map<String, Integer> DUPLICATES = new ConcurrentHashMap<>();

    /** Messages whose first applied copy holds the MDB's thread after its commit (armed by a test, this server). */
    private static final java.util.Set<String> HOLDS = ConcurrentHashMap.newKeySet();

    /** Makes the local-mode MDB hold after committing message {@code id}, before the broker's acknowledgement. */
    public static void holdAfterCommit(String id) {
        HOLDS.add(id);
    }

    /**
     * After the local mode's transaction: counts a skipped copy (not applied, and the handler did not run), and
     * holds the MDB's thread (for a minute at most) when a test armed it for this message, between the database's
     * commit and the broker's acknowledgement, for a crash test to kill the server there. Armed per message and
     * per server process, so no copy left on the broker by another run can hold a thread.
     */
    static void afterCommit(String id, boolean applied, int handledBefore) {
        if (!applied && handled(id) == handledBefore) {
            DUPLICATES.merge(id, 1, Integer::sum);
        }
        if (applied && HOLDS.remove(id)) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How many copies of message {@code id} the local mode's inbox skipped. */
    public static int duplicates(String id) {
        return DUPLICATES.getOrDefault(id, 0);
    }

    /** How often message {@code id} was handled (its effect run, failed or not) by either MDB. */
    public static int handled(String id) {
        return HANDLED.getOrDefault(id, 0);
    }

    private static int failures(String payload) {
        try (var reader = dev.courier.platform.Json.createReader(new StringReader(payload))) {
            JsonObject json = reader.readObject();
            return json.containsKey("fail") ? json.getInt("fail") : 0;
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
