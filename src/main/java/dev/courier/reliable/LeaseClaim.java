package dev.courier.reliable;

import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The claim of rows that fall due (check-backs, notices), written once for both databases: up to n due rows are
 * leased by moving their due time to the lease's end and adding one to their version, so that on several servers
 * each due row is claimed by one, and what is done with it later is fenced by the version the claim returned. A
 * lease that runs out makes the row due again by itself.
 *
 * <p>PostgreSQL: one statement that locks the due rows, skipping rows other claimers hold ({@code FOR UPDATE SKIP
 * LOCKED}, as the queue's claim does), and moves them. Derby has no {@code SKIP LOCKED}: the due rows are read, then
 * each is taken with a compare-and-swap on its version whose row count says who won (0: another server, 1: us).
 * Either way the rows come back in due order, each with its version after the claim.
 *
 * <p>The description is made of this package's constants, never of a caller's string: it is SQL.
 */
final class LeaseClaim {

    /**
     * Reads one claimed row: its key in column 1, the description's columns from column 3 on. Column 2 holds the
     * version as read (Derby: before the swap); {@code version} is the one after the claim, the one to fence with.
     */
    @FunctionalInterface
    interface Reader<T> {
        T read(ResultSet rows, long version) throws SQLException;
    }

    private final String claim;
    private final String select;
    private final String take;

    /**
     * A claim of {@code table}'s rows (aliased {@code alias}, keyed by {@code key}, with a {@code version}) whose
     * {@code due} time has come and that are {@code open}, joined to {@code joined} {@code on} a condition, returning
     * the key, the version and then {@code columns}, all qualified by their aliases. On PostgreSQL, for
     * check-backs:
     *
     * <pre>
     * WITH picked AS (SELECT m.id, m.next_check_at AS claim_due FROM courier_rm_message m
     *     WHERE m.state = 'PENDING' AND m.next_check_at &lt;= ? ORDER BY m.next_check_at LIMIT ? FOR UPDATE SKIP LOCKED),
     * claimed AS (UPDATE courier_rm_message m SET next_check_at = ?, version = m.version + 1
     *     FROM picked, courier_rm_producer p WHERE m.id = picked.id AND p.name = m.producer
     *     RETURNING m.id, m.version, m.producer, ..., picked.claim_due)
     * SELECT * FROM claimed ORDER BY claim_due
     * </pre>
     */
    LeaseClaim(
            String table, String alias, String key, String due, String open, String joined, String on, String columns) {
        String from = table + " " + alias;
        String id = alias + "." + key;
        String dueAt = alias + "." + due;
        String version = alias + ".version";
        String returned = id + ", " + version + ", " + columns;
        this.claim = "WITH picked AS (SELECT " + id + ", " + dueAt + " AS claim_due FROM " + from + " WHERE " + open
                + " AND " + dueAt + " <= ? ORDER BY " + dueAt + " LIMIT ? FOR UPDATE SKIP LOCKED), "
                + "claimed AS (UPDATE " + from + " SET " + due + " = ?, version = " + version + " + 1 FROM picked, "
                + joined + " WHERE " + id + " = picked." + key + " AND " + on + " RETURNING " + returned
                + ", picked.claim_due) SELECT * FROM claimed ORDER BY claim_due";
        this.select = "SELECT " + returned + " FROM " + from + " JOIN " + joined + " ON " + on + " WHERE " + open
                + " AND " + dueAt + " <= ? ORDER BY " + dueAt + " FETCH FIRST ? ROWS ONLY";
        this.take = "UPDATE " + from + " SET " + due + " = ?, version = " + version + " + 1 WHERE " + id + " = ? AND "
                + version + " = ? AND " + open;
    }

    /** The statements, for a look at what a claim runs. */
    @Override
    public String toString() {
        return "PostgreSQL: " + claim + "\nDerby: " + select + ";\n" + take;
    }

    /**
     * Claims up to {@code limit} rows due at {@code now}, moving their due time to {@code leaseUntil}, in the
     * caller's transaction. @return the claimed rows, in due order
     */
    <T> List<T> claim(Connection c, Instant now, Instant leaseUntil, int limit, Reader<T> reader) throws SQLException {
        return ReliableDatabase.postgres(c)
                ? inOneStatement(c, now, leaseUntil, limit, reader)
                : oneByOne(c, now, leaseUntil, limit, reader);
    }

    private <T> List<T> inOneStatement(Connection c, Instant now, Instant leaseUntil, int limit, Reader<T> reader)
            throws SQLException {
        try (PreparedStatement claim = c.prepareStatement(this.claim)) {
            claim.setTimestamp(1, timestamp(now), Columns.utc());
            claim.setInt(2, limit);
            claim.setTimestamp(3, timestamp(leaseUntil), Columns.utc());
            List<T> claimed = new ArrayList<>();
            try (ResultSet rows = claim.executeQuery()) {
                while (rows.next()) {
                    claimed.add(reader.read(rows, rows.getLong(2)));
                }
            }
            return claimed;
        }
    }

    private record Due<T>(String key, long version, T row) {}

    private <T> List<T> oneByOne(Connection c, Instant now, Instant leaseUntil, int limit, Reader<T> reader)
            throws SQLException {
        List<Due<T>> due = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(this.select)) {
            select.setTimestamp(1, timestamp(now), Columns.utc());
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    long version = rows.getLong(2);
                    due.add(new Due<>(rows.getString(1), version, reader.read(rows, version + 1)));
                }
            }
        }
        List<T> claimed = new ArrayList<>();
        try (PreparedStatement take = c.prepareStatement(this.take)) {
            for (Due<T> row : due) {
                take.setTimestamp(1, timestamp(leaseUntil), Columns.utc());
                take.setString(2, row.key());
                take.setLong(3, row.version());
                if (ReliableDatabase.exactlyOneOrNone(take.executeUpdate())) {
                    claimed.add(row.row());
                }
            }
        }
        return claimed;
    }
}
