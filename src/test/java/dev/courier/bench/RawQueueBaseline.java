package dev.courier.bench;

import dev.courier.queue.QueueSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The baseline: the very statements Courier runs ({@link QueueSql}), on plain JDBC connections with local
 * transactions — no server, no EJB, no JTA, no pool. Same phases, batches and workers as {@link QueueBenchmark}.
 */
final class RawQueueBaseline {

    private static final String PAYLOAD = QueueBenchmark.PAYLOAD_JSON;

    private final String url;
    private final String user;
    private final String password;

    RawQueueBaseline(String url, String user, String password) {
        // the driver setting Courier's datasource has (datasource-postgres.xml): batches as multi-row INSERTs
        this.url = url + (url.contains("?") ? "&" : "?") + "reWriteBatchedInserts=true";
        this.user = user;
        this.password = password;
    }

    QueueBenchmark.Result run(String queue, int workers, int batch, int messages) throws Exception {
        int total = messages / batch * batch;
        AtomicInteger toSend = new AtomicInteger(messages / batch);
        QueueBenchmark.Phase send = phase(workers, total, connection -> {
            List<Long> nanos = new ArrayList<>();
            try (PreparedStatement insert = connection.prepareStatement(QueueSql.INSERT_MESSAGE)) {
                while (toSend.getAndDecrement() > 0) {
                    long start = System.nanoTime();
                    send(connection, insert, queue, batch);
                    nanos.add(System.nanoTime() - start);
                }
            }
            return nanos;
        });
        AtomicInteger left = new AtomicInteger(total);
        QueueBenchmark.Phase receive = phase(workers, total, connection -> {
            List<Long> nanos = new ArrayList<>();
            try (PreparedStatement plan = connection.prepareStatement(QueueSql.PLAN_ON_INDEXES_POSTGRESQL);
                    PreparedStatement claim = connection.prepareStatement(QueueSql.CLAIM_POSTGRESQL);
                    PreparedStatement ack = connection.prepareStatement(QueueSql.ACK_POSTGRESQL)) {
                while (left.get() > 0) {
                    long start = System.nanoTime();
                    plan.executeQuery().close();
                    List<String[]> claimed = claim(connection, claim, queue, batch);
                    acknowledge(ack, claimed);
                    int got = claimed.size();
                    connection.commit();
                    if (got > 0) {
                        nanos.add(System.nanoTime() - start);
                        left.addAndGet(-got);
                    }
                }
            }
            return nanos;
        });
        return new QueueBenchmark.Result(workers, batch, send, receive);
    }

    /**
     * A worker's loop on Courier's SQL, as {@link QueueBenchmark#cycle} runs it on the Java API: send a batch
     * (one transaction: the inserts), then acknowledge the last batch received and claim the next
     * (one transaction: the deletes, the claim), until every message went round.
     */
    QueueBenchmark.Phase cycle(String queue, int workers, int batch, int messages) throws Exception {
        AtomicInteger toSend = new AtomicInteger(messages / batch);
        AtomicInteger left = new AtomicInteger(messages / batch * batch);
        return phase(workers, messages / batch * batch, connection -> {
            List<Long> nanos = new ArrayList<>();
            List<String[]> finished = new ArrayList<>();
            try (PreparedStatement insert = connection.prepareStatement(QueueSql.INSERT_MESSAGE);
                    PreparedStatement plan = connection.prepareStatement(QueueSql.PLAN_ON_INDEXES_POSTGRESQL);
                    PreparedStatement claim = connection.prepareStatement(QueueSql.CLAIM_POSTGRESQL);
                    PreparedStatement ack = connection.prepareStatement(QueueSql.ACK_POSTGRESQL)) {
                while (left.get() > 0) {
                    long start = System.nanoTime();
                    if (toSend.getAndDecrement() > 0) {
                        send(connection, insert, queue, batch);
                    }
                    plan.executeQuery().close(); // as Courier: once per claiming transaction
                    acknowledge(ack, finished);
                    finished.clear();
                    finished.addAll(claim(connection, claim, queue, batch));
                    connection.commit();
                    left.addAndGet(-finished.size());
                    nanos.add(System.nanoTime() - start);
                }
                plan.executeQuery().close();
                acknowledge(ack, finished);
                connection.commit();
            }
            return nanos;
        });
    }

    /**
     * One send transaction: the batch of inserts, as Courier's send runs them (a server reads a queue's row only
     * when its copy of the definition is missing or older than a second: not per operation).
     */
    private static void send(Connection connection, PreparedStatement insert, String queue, int batch)
            throws SQLException {
        Timestamp now = Timestamp.from(Instant.now());
        for (int i = 0; i < batch; i++) {
            insert.setString(1, UUID.randomUUID().toString());
            insert.setString(2, queue);
            insert.setTimestamp(3, now);
            insert.setString(4, null);
            insert.setString(5, "JSON");
            insert.setBytes(6, PAYLOAD.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            insert.setString(7, null);
            insert.setTimestamp(8, now);
            insert.addBatch();
        }
        insert.executeBatch();
        connection.commit();
    }

    /** One claim of up to {@code batch} messages, as Courier's; answers each message's id and lease token. */
    private static List<String[]> claim(Connection connection, PreparedStatement claim, String queue, int batch)
            throws SQLException {
        Instant now = Instant.now();
        claim.setString(1, queue);
        claim.setInt(2, batch);
        claim.setLong(3, 4_194_304L); // courier.queue.max-page-bytes' default, as the server's claim has it
        claim.setTimestamp(4, Timestamp.from(now));
        claim.setTimestamp(5, Timestamp.from(now.plusSeconds(60)));
        claim.setInt(6, 10);
        claim.setLong(7, 1000); // redelivery after 1 s, as the benchmark's queues
        claim.setDouble(8, 1.0);
        claim.setLong(9, 1000);
        claim.setString(10, UUID.randomUUID().toString().substring(0, 24));
        List<String[]> claimed = new ArrayList<>();
        try (ResultSet rows = claim.executeQuery()) {
            while (rows.next()) {
                rows.getBytes(6);
                claimed.add(new String[] {rows.getString(1), rows.getString(3)});
            }
        }
        return claimed;
    }

    /** One acknowledgement of the batch, as Courier's: the ids and tokens as two arrays. */
    private static void acknowledge(PreparedStatement ack, List<String[]> finished) throws SQLException {
        if (finished.isEmpty()) {
            return;
        }
        Connection connection = ack.getConnection();
        ack.setString(1, null);
        ack.setArray(
                2,
                connection.createArrayOf(
                        "text", finished.stream().map(m -> m[0]).toArray()));
        ack.setArray(
                3,
                connection.createArrayOf(
                        "text", finished.stream().map(m -> m[1]).toArray()));
        try (ResultSet lost = ack.executeQuery()) {
            if (lost.next() && lost.getString(2) != null) {
                throw new IllegalStateException("raw ack lost " + lost.getString(1) + ": " + lost.getString(2));
            }
        }
    }

    interface Work {
        List<Long> run(Connection connection) throws SQLException;
    }

    private QueueBenchmark.Phase phase(int workers, int messages, Work work) throws Exception {
        return onConnections(url, user, password, false, workers, messages, work);
    }

    /** Runs {@code work} on {@code workers} threads, each with a connection of its own; times the whole. */
    static QueueBenchmark.Phase onConnections(
            String url, String user, String password, boolean autoCommit, int workers, int messages, Work work)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Connection> connections = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                Connection connection = DriverManager.getConnection(url, user, password);
                connection.setAutoCommit(autoCommit);
                connections.add(connection);
            }
            long start = System.nanoTime();
            List<Future<List<Long>>> running = new ArrayList<>();
            for (Connection connection : connections) {
                running.add(pool.submit(() -> work.run(connection)));
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> future : running) {
                all.addAll(future.get());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            for (Connection connection : connections) {
                connection.close();
            }
            return new QueueBenchmark.Phase(
                    messages,
                    seconds,
                    new Latencies(all.stream().mapToLong(Long::longValue).toArray()));
        } finally {
            pool.shutdownNow();
        }
    }
}
