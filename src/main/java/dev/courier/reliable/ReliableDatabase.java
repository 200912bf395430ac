package dev.courier.reliable;

import dev.courier.platform.Dialect;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The reliable message service's database: connections from {@code jdbc/courier} (enlisted in the caller's JTA
 * transaction), which database it is, and what every store shares (bounded lock waits, the check of a fenced
 * update, grouped counts, qualified column lists). The stores hold the SQL, one per aggregate; times come from the
 * caller's clock and are stored with {@link dev.courier.platform.Columns}.
 */
@ApplicationScoped
class ReliableDatabase {

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    private static volatile Dialect dialect;

    Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    /** Courier's database (asked once: every connection is to the same database). */
    static Dialect dialect(Connection c) throws SQLException {
        Dialect known = dialect;
        if (known == null) {
            dialect = known = Dialect.of(c);
        }
        return known;
    }

    /** Whether Courier's database is PostgreSQL. */
    static boolean postgres(Connection c) throws SQLException {
        return dialect(c) == Dialect.POSTGRESQL;
    }

    /**
     * Bounds how long the rest of the current transaction waits for a row lock (PostgreSQL: 2 s, then SQLSTATE
     * 55P03): the reconciler's steps must not wait without end on a row that an in-doubt or hung transaction holds.
     * Derby bounds every wait itself ({@code derby.locks.waitTimeout}).
     */
    static void boundLockWaits(Connection c) throws SQLException {
        if (postgres(c)) {
            try (PreparedStatement set = c.prepareStatement("SELECT set_config('lock_timeout', '2s', true)")) {
                set.execute();
            }
        }
    }

    /** A fenced single-row update changed one row (ours) or none (someone else's); more is a bug. */
    static boolean exactlyOneOrNone(int rows) {
        if (rows > 1) {
            throw new IllegalStateException("a fenced update changed " + rows + " rows");
        }
        return rows == 1;
    }

    /** The parameter markers of an {@code IN} list of {@code n} values: "?, ?, ?". */
    static String placeholders(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }

    /** {@code columns} (a constant list, "a, b, c") with each column qualified by {@code alias}: "m.a, m.b, m.c". */
    static String qualified(String alias, String columns) {
        return columns.replaceAll("(^|, )", "$1" + alias + ".");
    }

    /** One count of a grouping: its keys (as selected) and how many rows. */
    record Count(List<String> keys, long count) {}

    /** The counts of a grouping query whose first {@code keys} columns are its keys and whose next is the count. */
    static List<Count> counts(Connection c, String sql, int keys) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(sql);
                ResultSet rows = select.executeQuery()) {
            List<Count> counts = new ArrayList<>();
            while (rows.next()) {
                List<String> values = new ArrayList<>(keys);
                for (int i = 1; i <= keys; i++) {
                    values.add(rows.getString(i));
                }
                counts.add(new Count(values, rows.getLong(keys + 1)));
            }
            return counts;
        }
    }
}
