package dev.courier.lab;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Watches PostgreSQL's in-doubt transactions during a fault run, twice a second: how many are prepared and not
 * yet committed or rolled back ({@code pg_prepared_xacts}), how long the oldest has been so, and how many locks
 * they hold ({@code pg_locks} rows without a backend). Its own connection: it runs beside the lab's.
 */
final class PreparedSampler {

    /** One look: when (s on the load's timeline), prepared transactions, the oldest one's age (s), locks held. */
    record Sample(double atSeconds, int prepared, double oldestSeconds, int locks) {}

    private final OrderLoad clock;
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;
    private volatile boolean inventoryHangs;
    private Thread thread;

    PreparedSampler(OrderLoad clock) {
        this.clock = clock;
    }

    void start() {
        thread = new Thread(this::sample, "lab-prepared-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        while (running) {
            // Both servers: the orders' (and Courier's) and the inventory's each hold their own branches.
            try (Connection orders = LabDatabases.connect(System.getProperty("courier.db.name", "courier"));
                    Connection inventory = dev.courier.testing.Postgres.inventory();
                    Statement first = orders.createStatement();
                    Statement second = inventory.createStatement()) {
                while (running) {
                    double[] a = prepared(first);
                    double[] b = inventoryHangs ? new double[3] : prepared(second);
                    samples.add(new Sample(clock.elapsedNanos() / 1e9, (int) (a[0] + b[0]), Math.max(a[1], b[1]), (int)
                            (a[2] + b[2])));
                    Thread.sleep(500);
                }
            } catch (SQLException e) {
                pause(); // the database restarting: look again
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** @return prepared transactions, the oldest one's age in seconds, locks held by prepared transactions */
    private static double[] prepared(Statement query) throws SQLException {
        try (ResultSet rows = query.executeQuery("SELECT (SELECT COUNT(*) FROM pg_prepared_xacts), "
                + "(SELECT COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - MIN(prepared)), 0) FROM pg_prepared_xacts), "
                + "(SELECT COUNT(*) FROM pg_locks WHERE pid IS NULL AND granted)")) {
            rows.next();
            return new double[] {rows.getInt(1), rows.getDouble(2), rows.getInt(3)};
        }
    }

    /** While the inventory's server hangs (SIGSTOP), only the orders' server is looked at: a query would wait. */
    void inventoryHangs(boolean hangs) {
        inventoryHangs = hangs;
    }

    void stop() throws InterruptedException {
        running = false;
        thread.join();
    }

    List<Sample> samples() {
        return List.copyOf(samples);
    }

    int maxPrepared() {
        return samples.stream().mapToInt(Sample::prepared).max().orElse(0);
    }

    double longestSeconds() {
        return samples.stream().mapToDouble(Sample::oldestSeconds).max().orElse(0);
    }

    int maxLocks() {
        return samples.stream().mapToInt(Sample::locks).max().orElse(0);
    }

    private static void pause() {
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
