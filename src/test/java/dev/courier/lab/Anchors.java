package dev.courier.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The physical limits every mode is bounded by, measured in the same run: {@code pg_test_fsync}'s fdatasync rate
 * (forced writes per second of this disk) and a pgbench one-row-insert rate (committed transactions per second of
 * this PostgreSQL).
 */
record Anchors(double fdatasyncPerSecond, double pgbenchInsertTps) {

    private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

    static Anchors measure(Path where) throws Exception {
        Path dir = where.toAbsolutePath();
        Files.createDirectories(dir);
        String fsync = run(
                dir,
                List.of(
                        BIN.resolve("pg_test_fsync").toString(),
                        "-s",
                        "2",
                        "-f",
                        dir.resolve("fsync.test").toString()));
        Matcher fdatasync =
                Pattern.compile("(?m)^\\s+fdatasync\\s+([0-9.]+) ops/sec").matcher(fsync);
        double fdatasyncRate = fdatasync.find() ? Double.parseDouble(fdatasync.group(1)) : Double.NaN;
        try (Connection c = LabDatabases.connect(System.getProperty("courier.db.name", "courier"));
                Statement ddl = c.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS lab_anchor (id BIGSERIAL PRIMARY KEY, v INT NOT NULL)");
        }
        Path script = dir.resolve("insert.sql");
        Files.writeString(script, "INSERT INTO lab_anchor (v) VALUES (1);\n");
        ProcessBuilder pgbench = new ProcessBuilder(
                BIN.resolve("pgbench").toString(),
                "-h",
                System.getProperty("courier.db.host", "localhost"),
                "-p",
                System.getProperty("courier.db.port", "5432"),
                "-U",
                System.getProperty("courier.db.user", "courier"),
                "-n",
                "-c",
                "4",
                "-j",
                "2",
                "-T",
                "10",
                "-f",
                script.toString(),
                System.getProperty("courier.db.name", "courier"));
        pgbench.environment().put("PGPASSWORD", dev.courier.testing.Postgres.password());
        String bench = run(dir, pgbench);
        Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(bench);
        return new Anchors(fdatasyncRate, tps.find() ? Double.parseDouble(tps.group(1)) : Double.NaN);
    }

    private static String run(Path dir, List<String> command) throws IOException, InterruptedException {
        return run(dir, new ProcessBuilder(command));
    }

    private static String run(Path dir, ProcessBuilder builder) throws IOException, InterruptedException {
        Process process =
                builder.directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        process.waitFor(2, TimeUnit.MINUTES);
        return new String(out, StandardCharsets.UTF_8);
    }
}
