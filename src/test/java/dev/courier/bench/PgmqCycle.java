package dev.courier.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The peer: PGMQ's SQL functions (loaded by {@code bin/postgres} into a database of their own) over plain JDBC,
 * each call its own transaction, as PGMQ is used. A worker's loop: send a batch ({@code pgmq.send} or
 * {@code send_batch}), read up to a batch ({@code pgmq.read}, visibility 60 s), delete what it read.
 */
final class PgmqCycle {

    private final String url;
    private final String user;
    private final String password;

    PgmqCycle(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** Whether PGMQ is loaded (it is when {@code ../shared/peers} was there when {@code bin/postgres} ran). */
    boolean available() {
        try (Connection connection = DriverManager.getConnection(url, user, password);
                ResultSet found = connection
                        .createStatement()
                        .executeQuery("SELECT COUNT(*) FROM pg_namespace WHERE nspname = 'pgmq'")) {
            return found.next() && found.getInt(1) == 1;
        } catch (SQLException e) {
            return false;
        }
    }

    QueueBenchmark.Phase cycle(String queue, int workers, int batch, int messages) throws Exception {
        call("SELECT pgmq.create(?)", queue);
        try {
            AtomicInteger toSend = new AtomicInteger(messages / batch);
            AtomicInteger left = new AtomicInteger(messages / batch * batch);
            return RawQueueBaseline.onConnections(
                    url,
                    user,
                    password,
                    true,
                    workers,
                    messages / batch * batch,
                    connection -> loop(connection, queue, batch, toSend, left));
        } finally {
            call("SELECT pgmq.drop_queue(?)", queue);
        }
    }

    private static List<Long> loop(
            Connection connection, String queue, int batch, AtomicInteger toSend, AtomicInteger left)
            throws SQLException {
        List<Long> nanos = new ArrayList<>();
        String[] payloads =
                Collections.nCopies(batch, QueueBenchmark.PAYLOAD_JSON).toArray(String[]::new);
        try (PreparedStatement send = connection.prepareStatement(
                        batch == 1 ? "SELECT pgmq.send(?, ?::jsonb)" : "SELECT pgmq.send_batch(?, ?::jsonb[])");
                PreparedStatement read =
                        connection.prepareStatement("SELECT msg_id, message FROM pgmq.read(?, 60, ?)");
                PreparedStatement delete = connection.prepareStatement(
                        batch == 1 ? "SELECT pgmq.delete(?, ?::bigint)" : "SELECT pgmq.delete(?, ?::bigint[])")) {
            Array sendArray = batch == 1 ? null : connection.createArrayOf("jsonb", payloads);
            while (left.get() > 0) {
                long start = System.nanoTime();
                if (toSend.getAndDecrement() > 0) {
                    send.setString(1, queue);
                    if (batch == 1) {
                        send.setString(2, QueueBenchmark.PAYLOAD_JSON);
                    } else {
                        send.setArray(2, sendArray);
                    }
                    send.executeQuery().close();
                }
                List<Long> read1 = new ArrayList<>();
                read.setString(1, queue);
                read.setInt(2, batch);
                try (ResultSet rows = read.executeQuery()) {
                    while (rows.next()) {
                        read1.add(rows.getLong(1));
                        rows.getString(2);
                    }
                }
                if (!read1.isEmpty()) {
                    delete.setString(1, queue);
                    if (batch == 1) {
                        delete.setLong(2, read1.get(0));
                    } else {
                        delete.setArray(2, connection.createArrayOf("bigint", read1.toArray()));
                    }
                    delete.executeQuery().close();
                }
                left.addAndGet(-read1.size());
                nanos.add(System.nanoTime() - start);
            }
        }
        return nanos;
    }

    private void call(String sql, String queue) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, user, password);
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, queue);
            statement.executeQuery().close();
        }
    }
}
