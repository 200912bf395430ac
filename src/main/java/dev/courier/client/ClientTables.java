package dev.courier.client;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The two tables the helpers keep in the application's own database: {@code courier_barrier} (producer side: one
 * row per prepared message, COMMITTED with the local transaction, or a ROLLED_BACK marker left by a check-back)
 * and {@code courier_inbox} (consumer side: one row per processed message and subscriber). The DDL is plain SQL
 * that PostgreSQL and Derby both accept; an application that manages its schema itself can copy it from here.
 */
public final class ClientTables {

    static final String BARRIER = "CREATE TABLE courier_barrier (message_id VARCHAR(36) NOT NULL PRIMARY KEY, "
            + "outcome VARCHAR(11) NOT NULL, created_at TIMESTAMP NOT NULL)";
    static final String INBOX = "CREATE TABLE courier_inbox (message_id VARCHAR(36) NOT NULL, "
            + "subscriber VARCHAR(63) NOT NULL, received_at TIMESTAMP NOT NULL, PRIMARY KEY (message_id, subscriber))";

    private ClientTables() {}

    /** Creates both tables unless they exist. Run it outside a transaction, once at start-up. */
    public static void create(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            for (String ddl : new String[] {BARRIER, INBOX}) {
                if (!exists(c, ddl.split(" ")[2])) {
                    try (Statement statement = c.createStatement()) {
                        statement.executeUpdate(ddl);
                    } catch (SQLException e) {
                        if (!exists(c, ddl.split(" ")[2])) { // another server created it meanwhile
                            throw e;
                        }
                    }
                }
            }
        }
    }

    /**
     * Forgets barrier rows and inbox entries older than {@code before}. Safe for any {@code before} at least
     * Courier's {@code courier.reliable.horizon} (7 days) ago: past a message's horizon Courier makes no check-back
     * and sends no further copy of it (the message or its delivery goes dead instead), so no late call needs the
     * rows. A purge closer than that can make a check-back answer ROLLED_BACK for a committed message, or a late
     * copy be applied twice.
     */
    public static int purge(DataSource dataSource, Instant before) throws SQLException {
        int deleted = 0;
        try (Connection c = dataSource.getConnection()) {
            for (String delete : new String[] {
                "DELETE FROM courier_barrier WHERE created_at < ?", "DELETE FROM courier_inbox WHERE received_at < ?"
            }) {
                try (PreparedStatement statement = c.prepareStatement(delete)) {
                    statement.setTimestamp(1, Timestamp.from(before));
                    deleted += statement.executeUpdate();
                }
            }
        }
        return deleted;
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        for (String name : new String[] {table, table.toUpperCase(java.util.Locale.ROOT)}) {
            try (var tables = c.getMetaData().getTables(null, null, name, new String[] {"TABLE"})) {
                if (tables.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** SQLState 23505: a unique key already holds the value (PostgreSQL and Derby alike). */
    static boolean duplicateKey(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            if ("23505".equals(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
