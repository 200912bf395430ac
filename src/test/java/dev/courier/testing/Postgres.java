package dev.courier.testing;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * Connections from the tests to the two PostgreSQL servers of a PostgreSQL run, as the server under test reaches
 * them (the failsafe configuration's system properties): Courier's (and the lab's orders), and the lab's
 * inventory server, a second one (bin/postgres, port 5433).
 */
public final class Postgres {

    private Postgres() {}

    /**
     * A database on Courier's server: the one of {@code courier.db.hosts} that accepts writes (the primary, when
     * the hosts are a primary and its standby), as the server under test takes it.
     */
    public static Connection courier(String database) throws SQLException {
        return as(database, user(), password());
    }

    /** A database on Courier's server as another role than Courier's. */
    public static Connection as(String database, String user, String password) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + System.getProperty("courier.db.hosts", "localhost:5432") + "/" + database
                        + "?targetServerType=primary",
                user,
                password);
    }

    /**
     * Runs {@code sql} on Courier's database as PostgreSQL's superuser ({@code runuser postgres psql}), as an
     * operator would: roles and databases the tests make and remove.
     */
    public static void superuser(String sql) throws Exception {
        String[] host = System.getProperty("courier.db.hosts", "localhost:5432")
                .split(",")[0]
                .split(":");
        Process psql = new ProcessBuilder(
                        "runuser",
                        "-u",
                        "postgres",
                        "--",
                        "psql",
                        "-p",
                        host[1],
                        "-d",
                        System.getProperty("courier.db.name", "courier"),
                        "-X",
                        "-q",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-c",
                        sql)
                .redirectErrorStream(true)
                .start();
        String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!psql.waitFor(30, TimeUnit.SECONDS) || psql.exitValue() != 0) {
            throw new IllegalStateException("psql as postgres failed: " + sql + "\n" + output);
        }
    }

    /** Courier's own database. */
    public static Connection courier() throws SQLException {
        return courier(System.getProperty("courier.db.name", "courier"));
    }

    /** The lab's inventory database, on its server. */
    public static Connection inventory() throws SQLException {
        return inventory("courier_inventory");
    }

    /** A database on the lab's inventory server (e.g. "postgres", to change the inventory database itself). */
    public static Connection inventory(String database) throws SQLException {
        return connect(System.getProperty("courier.inventory.db.port", "5433"), database);
    }

    /** Prepared transactions not yet committed or rolled back, on both servers. */
    public static int preparedTransactions() {
        try (Connection courier = courier();
                Connection inventory = inventory()) {
            return prepared(courier) + prepared(inventory);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static int prepared(Connection c) throws SQLException {
        try (Statement query = c.createStatement();
                ResultSet rows = query.executeQuery("SELECT COUNT(*) FROM pg_prepared_xacts")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static Connection connect(String port, String database) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":" + port + "/" + database,
                user(),
                password());
    }

    private static String user() {
        return System.getProperty("courier.db.user", "courier");
    }

    /**
     * The password of Courier's PostgreSQL role: {@code -Dcourier.db.password} when given, else the one {@code
     * bin/postgres} generated and kept in {@code data/security/postgres.properties} of this checkout.
     */
    public static String password() {
        String given = System.getProperty("courier.db.password", "");
        if (!given.isEmpty()) {
            return given;
        }
        java.nio.file.Path file = java.nio.file.Path.of(
                System.getProperty("courier.db.secrets.dir", "data/security"), "postgres.properties");
        java.util.Properties generated = new java.util.Properties();
        try (java.io.Reader reader = java.nio.file.Files.newBufferedReader(file)) {
            generated.load(reader);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(
                    "no -Dcourier.db.password and no " + file + " (run bin/postgres)", e);
        }
        return generated.getProperty("password");
    }
}
