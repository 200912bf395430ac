package dev.courier.queue.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * Courier's transactional queue in your application's own transaction: every call runs the SQL API's function
 * (schema {@code courier}, PostgreSQL) on your connection, so what it writes commits or rolls back with your
 * other writes on it. The semantics are the SQL API's, which are Courier's everywhere: fenced lease tokens, an
 * acknowledgement that must delete exactly one row and otherwise fails (and with it your transaction), the
 * idempotency window, backoff on redelivery, dead after the queue's attempts, the database's clock.
 *
 * <ul>
 * <li>{@link #over(DataSource)} / {@link #jndi(String)}: each call takes a connection from your datasource and
 * closes it; in Jakarta EE a JTA datasource enlists it in the current transaction (a {@code @Transactional}
 * bean's, a stateless EJB's).</li>
 * <li>{@link #on(Connection)}: the calls run on your connection, in whatever transaction it has open (Spring's,
 * plain JDBC with {@code setAutoCommit(false)}).</li>
 * </ul>
 *
 * Failures are {@link QueueException}s naming their {@link QueueException.Reason}. Thread-safe over a datasource;
 * over one connection, as safe as that connection.
 */
public final class CourierQueue {

    private static final String RECEIVE = "SELECT r.id, r.lease_token, r.attempt, r.payload::text, "
            + "(SELECT array_agg(h.key) FROM jsonb_each_text(r.headers) h), "
            + "(SELECT array_agg(h.value) FROM jsonb_each_text(r.headers) h), "
            + "r.lease_expires_at, r.created_at, r.payload_type "
            + "FROM courier.receive(?, ?, ? * interval '1 millisecond') r";

    /** Where a call gets its connection, and whether it closes it after. */
    private interface Connections {
        Connection open() throws SQLException;

        void done(Connection connection) throws SQLException;
    }

    private final Connections connections;

    private CourierQueue(Connections connections) {
        this.connections = connections;
    }

    /** Each call on a connection from {@code dataSource}, closed after it (a JTA datasource joins the transaction). */
    public static CourierQueue over(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource is required");
        return new CourierQueue(new Connections() {
            @Override
            public Connection open() throws SQLException {
                return dataSource.getConnection();
            }

            @Override
            public void done(Connection connection) throws SQLException {
                connection.close();
            }
        });
    }

    /**
     * {@link #over(DataSource)} for the datasource bound to {@code jndiName} (e.g. {@code jdbc/orders}), looked up
     * once, now. @throws IllegalArgumentException when nothing is bound there
     */
    public static CourierQueue jndi(String jndiName) {
        try {
            Object bound = new InitialContext().lookup(jndiName);
            if (!(bound instanceof DataSource dataSource)) {
                throw new IllegalArgumentException(jndiName + " is not a DataSource: " + bound);
            }
            return over(dataSource);
        } catch (NamingException e) {
            throw new IllegalArgumentException("no datasource bound to " + jndiName, e);
        }
    }

    /** Every call on {@code connection}, in its current transaction; the connection stays open. */
    public static CourierQueue on(Connection connection) {
        Objects.requireNonNull(connection, "connection is required");
        return new CourierQueue(new Connections() {
            @Override
            public Connection open() {
                return connection;
            }

            @Override
            public void done(Connection ignored) {}
        });
    }

    /**
     * Creates {@code queue} with {@code definition}, or updates an existing queue's settings (its messages follow
     * them from their next delivery on; Courier's servers see them within {@code courier.queue.settings-ttl}).
     * A queue made here has no grants: who may use it through REST is Courier's configuration.
     *
     * @return true when the queue was created
     * @throws QueueException {@link QueueException.Reason#INVALID} for a bad name or setting,
     *     {@link QueueException.Reason#LIMIT_REACHED} when {@code courier.queue.max-queues} exist already
     */
    public boolean define(String queue, QueueDefinition definition) {
        Objects.requireNonNull(definition, "definition is required");
        return call(connection -> {
            try (PreparedStatement define = connection.prepareStatement("SELECT courier.define_queue(?, "
                    + "? * interval '1 millisecond', ?, ? * interval '1 millisecond', ?, "
                    + "? * interval '1 millisecond')")) {
                define.setString(1, queue);
                setMillis(define, 2, definition.lease());
                define.setInt(3, definition.maxAttempts());
                setMillis(define, 4, definition.backoffInitial());
                define.setDouble(5, definition.backoffMultiplier());
                setMillis(define, 6, definition.backoffMax());
                try (ResultSet row = define.executeQuery()) {
                    row.next();
                    return row.getBoolean(1);
                }
            }
        });
    }

    /** Drops {@code queue} with all its messages, live and dead. @throws QueueException QUEUE_NOT_FOUND */
    public void drop(String queue) {
        run("SELECT courier.drop_queue(?)", statement -> statement.setString(1, queue));
    }

    /**
     * A page of {@code queue}'s dead messages in id order, after {@code afterId} ({@code null}: from the first), at
     * most {@code max} (1 to 500). Pass the last one's id to read the next page.
     */
    public List<DeadLetter> deadLetters(String queue, String afterId, int max) {
        return call(connection -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT d.id, d.attempt, d.payload::text, "
                    + "(SELECT array_agg(h.key) FROM jsonb_each_text(d.headers) h), "
                    + "(SELECT array_agg(h.value) FROM jsonb_each_text(d.headers) h), "
                    + "d.payload_type, d.last_error, d.history::text, d.created_at, d.dead_at "
                    + "FROM courier.dead_letters(?, ?::uuid, ?) d")) {
                select.setString(1, queue);
                select.setString(2, afterId);
                select.setInt(3, max);
                List<DeadLetter> dead = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        dead.add(new DeadLetter(
                                rows.getString(1),
                                rows.getInt(2),
                                rows.getString(3),
                                headers(rows.getArray(4), rows.getArray(5)),
                                rows.getString(6),
                                rows.getString(7),
                                rows.getString(8),
                                rows.getObject(9, OffsetDateTime.class).toInstant(),
                                rows.getObject(10, OffsetDateTime.class).toInstant()));
                    }
                }
                return dead;
            }
        });
    }

    /**
     * Makes dead messages live again, deliverable now with their attempts counted afresh (history kept); ids that
     * are not dead messages of {@code queue} are skipped. @param ids empty for every dead message of the queue
     * @return how many it replayed
     */
    public int replay(String queue, List<String> ids) {
        return deadLetterCall("SELECT courier.replay(?, ?::uuid[])", queue, ids, null);
    }

    /**
     * {@link #replay(String, List)}, paced: the i-th message (in id order, from 0) becomes deliverable
     * {@code i / ratePerSecond} seconds from now, so that replaying many does not flood the receivers.
     */
    public int replay(String queue, List<String> ids, double ratePerSecond) {
        return deadLetterCall("SELECT courier.replay(?, ?::uuid[], ?)", queue, ids, ratePerSecond);
    }

    /** Deletes dead messages for good. @param ids empty for every dead message of the queue @return how many */
    public int purge(String queue, List<String> ids) {
        return deadLetterCall("SELECT courier.purge(?, ?::uuid[])", queue, ids, null);
    }

    private int deadLetterCall(String sql, String queue, List<String> ids, Double rate) {
        return call(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setString(1, queue);
                statement.setArray(2, texts(connection, ids));
                if (rate != null) {
                    statement.setDouble(3, rate);
                }
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    return row.getInt(1);
                }
            }
        });
    }

    /** Sends one message (JSON text) to {@code queue}, deliverable at once. @return its id */
    public String send(String queue, String payload) {
        return call(connection -> {
            try (PreparedStatement send = connection.prepareStatement("SELECT courier.send(?, ?::jsonb)")) {
                send.setString(1, queue);
                send.setString(2, payload);
                try (ResultSet row = send.executeQuery()) {
                    row.next();
                    return row.getString(1);
                }
            }
        });
    }

    /** Sends one message. */
    public Sent send(String queue, Send message) {
        return sendBatch(queue, List.of(message)).get(0);
    }

    /** Sends messages to one queue: all or none (a refused one refuses the call). Results in their order. */
    public List<Sent> sendBatch(String queue, List<Send> messages) {
        if (messages.isEmpty()) {
            return List.of();
        }
        // One delay for the call, as the SQL API takes it: messages with different delays go in separate calls.
        Duration delay = messages.get(0).delay();
        for (Send message : messages) {
            if (!Objects.equals(delay, message.delay())) {
                throw new IllegalArgumentException("the messages of one batch share their delay");
            }
        }
        boolean keyed = messages.stream().anyMatch(m -> m.key() != null);
        boolean headed = messages.stream().anyMatch(m -> !m.headers().isEmpty());
        return call(connection -> {
            try (PreparedStatement send = connection.prepareStatement(
                    "SELECT id, duplicate FROM courier.send_batch(?, ?::jsonb[], ? * interval '1 millisecond', ?, "
                            + "?::jsonb[])")) {
                send.setString(1, queue);
                send.setArray(
                        2,
                        texts(connection, messages.stream().map(Send::payload).toList()));
                setMillis(send, 3, delay);
                if (keyed) {
                    send.setArray(
                            4,
                            texts(connection, messages.stream().map(Send::key).toList()));
                } else {
                    send.setNull(4, Types.ARRAY);
                }
                if (headed) {
                    send.setArray(
                            5,
                            texts(
                                    connection,
                                    messages.stream()
                                            .map(m -> HeadersJson.encode(m.headers()))
                                            .toList()));
                } else {
                    send.setNull(5, Types.ARRAY);
                }
                List<Sent> sent = new ArrayList<>(messages.size());
                try (ResultSet rows = send.executeQuery()) {
                    while (rows.next()) {
                        sent.add(new Sent(rows.getString(1), rows.getBoolean(2)));
                    }
                }
                return sent;
            }
        });
    }

    /** Leases up to {@code max} deliverable messages for the queue's lease. */
    public List<Received> receive(String queue, int max) {
        return receive(queue, max, null);
    }

    /**
     * Leases up to {@code max} deliverable messages of {@code queue} for {@code lease} ({@code null}: the queue's),
     * in the current transaction: rolled back, the leases are undone. Returns at once, possibly with none.
     */
    public List<Received> receive(String queue, int max, Duration lease) {
        return call(connection -> {
            try (PreparedStatement receive = connection.prepareStatement(RECEIVE)) {
                receive.setString(1, queue);
                receive.setInt(2, max);
                setMillis(receive, 3, lease);
                List<Received> received = new ArrayList<>();
                try (ResultSet rows = receive.executeQuery()) {
                    while (rows.next()) {
                        received.add(new Received(
                                rows.getString(1),
                                rows.getString(2),
                                rows.getInt(3),
                                rows.getString(4),
                                headers(rows.getArray(5), rows.getArray(6)),
                                rows.getObject(7, OffsetDateTime.class).toInstant(),
                                rows.getObject(8, OffsetDateTime.class).toInstant(),
                                rows.getString(9)));
                    }
                }
                return received;
            }
        });
    }

    /**
     * Acknowledges: deletes the message if {@code leaseToken} is its current lease. Exactly one row, or it throws
     * ({@link QueueException.Reason#MESSAGE_GONE}, {@link QueueException.Reason#STALE_LEASE}) and your transaction
     * fails with it: a retried acknowledgement cannot commit your work twice.
     */
    public void ack(String leaseToken) {
        run("SELECT courier.ack(?)", statement -> statement.setString(1, leaseToken));
    }

    /** Acknowledges every message of {@code leaseTokens}, or none (throws as {@link #ack} for the first at fault). */
    public void ackAll(List<String> leaseTokens) {
        if (leaseTokens.isEmpty()) {
            return;
        }
        call(connection -> {
            try (PreparedStatement ack = connection.prepareStatement("SELECT courier.ack_all(?)")) {
                ack.setArray(1, texts(connection, leaseTokens));
                ack.executeQuery().close();
                return null;
            }
        });
    }

    /**
     * Acknowledges a message and sends a follow-up in the same transaction: the long-work pattern (acknowledge now,
     * and resend with a delay past the expected end of the work).
     */
    public Sent ackAndResend(String leaseToken, String queue, Send message) {
        ack(leaseToken);
        return send(queue, message);
    }

    /** Extends a lease to {@code extension} from now (at most 12 hours). @return when it now ends */
    public Instant renewLease(String leaseToken, Duration extension) {
        return call(connection -> {
            try (PreparedStatement renew =
                    connection.prepareStatement("SELECT courier.renew(?, ? * interval '1 millisecond')")) {
                renew.setString(1, leaseToken);
                setMillis(renew, 2, Objects.requireNonNull(extension, "extension is required"));
                try (ResultSet row = renew.executeQuery()) {
                    row.next();
                    return row.getObject(1, OffsetDateTime.class).toInstant();
                }
            }
        });
    }

    /**
     * Gives a message back before its lease ends, as a failed attempt kept in its history with {@code reason}:
     * delivered again after {@code delay} ({@code null}: the queue's backoff), or dead if that was its last.
     */
    public void release(String leaseToken, Duration delay, String reason) {
        run("SELECT courier.release(?, ? * interval '1 millisecond', ?)", statement -> {
            statement.setString(1, leaseToken);
            setMillis(statement, 2, delay);
            statement.setString(3, reason);
        });
    }

    // --- plumbing

    private interface Work<T> {
        T on(Connection connection) throws SQLException;
    }

    private interface Binding {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private void run(String sql, Binding binding) {
        call(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                binding.bind(statement);
                statement.executeQuery().close();
                return null;
            }
        });
    }

    private <T> T call(Work<T> work) {
        try {
            Connection connection = connections.open();
            try {
                return work.on(connection);
            } finally {
                connections.done(connection);
            }
        } catch (SQLException e) {
            throw QueueException.of(e);
        }
    }

    private static void setMillis(PreparedStatement statement, int index, Duration duration) throws SQLException {
        if (duration == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, duration.toMillis());
        }
    }

    private static Array texts(Connection connection, List<String> values) throws SQLException {
        return connection.createArrayOf("text", values.toArray());
    }

    private static Map<String, String> headers(Array keys, Array values) throws SQLException {
        if (keys == null) {
            return Map.of();
        }
        String[] k = (String[]) keys.getArray();
        String[] v = (String[]) values.getArray();
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 0; i < k.length; i++) {
            headers.put(k[i], v[i]);
        }
        return Map.copyOf(headers);
    }
}
