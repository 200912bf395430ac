package dev.courier.audit;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import dev.courier.platform.DatabaseClock;
import dev.courier.platform.PageCursor;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The recorded administrative actions ({@code courier_audit}). Each entry is written in a transaction of its own,
 * so it stays whatever became of the caller's; entries are read newest first.
 */
@ApplicationScoped
public class AuditTrail {

    private static final int MAX_TEXT = 500;
    /** The detail column's width: the longest grants a queue or topic may hold fit. */
    static final int MAX_DETAIL = 10_000;

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @Inject
    private DatabaseClock clock;

    /**
     * Records one call, now.
     *
     * @param detail what it asked for (its request body) or, for a failed login, how many failures; may be null
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void record(String principal, String action, String target, int status, String detail) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO courier_audit"
                                + " (id, recorded_at, principal, action, target, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, EntryIds.next());
            insert.setTimestamp(2, timestamp(clock.instant()), Columns.utc());
            insert.setString(3, cut(principal, 200));
            insert.setString(4, cut(action, 63));
            insert.setString(5, cut(target, MAX_TEXT));
            insert.setInt(6, status);
            insert.setString(7, cut(detail, MAX_DETAIL));
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("recording an audit entry failed", e);
        }
    }

    /**
     * Up to {@code limit} entries, newest first (entries of one instant by id, the later made first), only those
     * recorded before {@code before} if given, and only those after {@code after}, the last entry of the page before.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<AuditEntry> entries(Optional<Instant> before, Optional<PageCursor> after, int limit) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement select = c.prepareStatement(
                        "SELECT id, recorded_at, principal, action, target, status, detail FROM courier_audit WHERE 1 = 1"
                                + (before.isPresent() ? " AND recorded_at < ?" : "")
                                + (after.isPresent() ? " AND (recorded_at < ? OR (recorded_at = ? AND id < ?))" : "")
                                + " ORDER BY recorded_at DESC, id DESC FETCH FIRST ? ROWS ONLY")) {
            int p = 1;
            if (before.isPresent()) {
                select.setTimestamp(p++, timestamp(before.get()), Columns.utc());
            }
            if (after.isPresent()) {
                select.setTimestamp(p++, timestamp(after.get().at()), Columns.utc());
                select.setTimestamp(p++, timestamp(after.get().at()), Columns.utc());
                select.setString(p++, after.get().id());
            }
            select.setInt(p, limit);
            List<AuditEntry> entries = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    entries.add(new AuditEntry(
                            rows.getString(1),
                            instant(rows, 2),
                            rows.getString(3),
                            rows.getString(4),
                            rows.getString(5),
                            rows.getInt(6),
                            rows.getString(7)));
                }
            }
            return entries;
        } catch (SQLException e) {
            throw new IllegalStateException("reading the audit trail failed", e);
        }
    }

    /** Deletes entries older than {@code cutoff}. @return how many */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int purge(Instant cutoff) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement delete = c.prepareStatement("DELETE FROM courier_audit WHERE recorded_at < ?")) {
            delete.setTimestamp(1, timestamp(cutoff), Columns.utc());
            return delete.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("purging the audit trail failed", e);
        }
    }

    private static String cut(String text, int max) {
        return text == null || text.length() <= max ? text : text.substring(0, max);
    }
}
