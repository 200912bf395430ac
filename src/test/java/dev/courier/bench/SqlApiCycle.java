package dev.courier.bench;

import dev.courier.queue.jdbc.CourierQueue;
import dev.courier.queue.jdbc.Received;
import dev.courier.queue.jdbc.Send;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Courier's SQL API (the {@code courier.*} functions) over plain JDBC, as an application in any language uses it,
 * each call its own transaction (autocommit), the same loop as {@link PgmqCycle}'s: send a batch
 * ({@code courier.send} or {@code send_batch}), receive up to a batch (lease 60 s), acknowledge what it received
 * ({@code courier.ack} or {@code ack_all}). The queue is Courier's, defined by the caller.
 */
final class SqlApiCycle {

    private final String url;
    private final String user;
    private final String password;

    SqlApiCycle(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    QueueBenchmark.Phase cycle(String queue, int workers, int batch, int messages) throws Exception {
        return run(
                workers, batch, messages, (connection, toSend, left) -> loop(connection, queue, batch, toSend, left));
    }

    /**
     * The same loop through the queue library ({@link CourierQueue#on}, which calls the same functions): what the
     * library costs over the statements it runs.
     */
    QueueBenchmark.Phase libraryCycle(String queue, int workers, int batch, int messages) throws Exception {
        return run(
                workers,
                batch,
                messages,
                (connection, toSend, left) -> libraryLoop(CourierQueue.on(connection), queue, batch, toSend, left));
    }

    /** A worker's loop over the messages still to send and to take. */
    private interface Loop {
        List<Long> run(Connection connection, AtomicInteger toSend, AtomicInteger left) throws SQLException;
    }

    private QueueBenchmark.Phase run(int workers, int batch, int messages, Loop loop) throws Exception {
        AtomicInteger toSend = new AtomicInteger(messages / batch);
        AtomicInteger left = new AtomicInteger(messages / batch * batch);
        return RawQueueBaseline.onConnections(
                url,
                user,
                password,
                true,
                workers,
                messages / batch * batch,
                connection -> loop.run(connection, toSend, left));
    }

    private static List<Long> libraryLoop(
            CourierQueue library, String queue, int batch, AtomicInteger toSend, AtomicInteger left) {
        List<Long> nanos = new ArrayList<>();
        List<Send> sends = Collections.nCopies(batch, Send.of(QueueBenchmark.PAYLOAD_JSON));
        while (left.get() > 0) {
            long start = System.nanoTime();
            if (toSend.getAndDecrement() > 0) {
                if (batch == 1) {
                    library.send(queue, QueueBenchmark.PAYLOAD_JSON);
                } else {
                    library.sendBatch(queue, sends);
                }
            }
            List<Received> received = library.receive(queue, batch, Duration.ofSeconds(60));
            if (batch == 1 && !received.isEmpty()) {
                library.ack(received.get(0).leaseToken());
            } else if (!received.isEmpty()) {
                library.ackAll(received.stream().map(Received::leaseToken).toList());
            }
            left.addAndGet(-received.size());
            nanos.add(System.nanoTime() - start);
        }
        return nanos;
    }

    private static List<Long> loop(
            Connection connection, String queue, int batch, AtomicInteger toSend, AtomicInteger left)
            throws SQLException {
        List<Long> nanos = new ArrayList<>();
        String[] payloads =
                Collections.nCopies(batch, QueueBenchmark.PAYLOAD_JSON).toArray(String[]::new);
        try (PreparedStatement send = connection.prepareStatement(
                        batch == 1
                                ? "SELECT courier.send(?, ?::jsonb)"
                                : "SELECT id FROM courier.send_batch(?, ?::jsonb[])");
                PreparedStatement receive = connection.prepareStatement(
                        "SELECT lease_token, payload FROM courier.receive(?, ?, interval '60 seconds')");
                PreparedStatement ack = connection.prepareStatement(
                        batch == 1 ? "SELECT courier.ack(?)" : "SELECT courier.ack_all(?)")) {
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
                List<String> tokens = new ArrayList<>();
                receive.setString(1, queue);
                receive.setInt(2, batch);
                try (ResultSet rows = receive.executeQuery()) {
                    while (rows.next()) {
                        tokens.add(rows.getString(1));
                        rows.getString(2);
                    }
                }
                if (!tokens.isEmpty()) {
                    if (batch == 1) {
                        ack.setString(1, tokens.get(0));
                    } else {
                        ack.setArray(1, connection.createArrayOf("text", tokens.toArray()));
                    }
                    ack.executeQuery().close();
                }
                left.addAndGet(-tokens.size());
                nanos.add(System.nanoTime() - start);
            }
        }
        return nanos;
    }
}
