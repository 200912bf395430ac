package dev.courier.reliable;

import static dev.courier.platform.Columns.timestamp;

import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The notices to producers ({@code courier_rm_notice}): written in the transaction that made a message or a
 * delivery dead, claimed for sending, and retried until the producer answered. Every method runs in the caller's
 * transaction on the connection it is given.
 */
@ApplicationScoped
class NoticeStore {

    @Inject
    private SecretSeal seal;

    NoticeStore() {}

    /** For tests outside a container. */
    NoticeStore(SecretSeal seal) {
        this.seal = seal;
    }

    void insertNotice(
            Connection c,
            String id,
            String producer,
            String messageId,
            String subscriber,
            String kind,
            String body,
            Instant now)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO courier_rm_notice (id, producer, message_id, "
                + "subscriber, kind, body, attempts, next_attempt_at, version, created_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, ?)")) {
            insert.setString(1, id);
            insert.setString(2, producer);
            insert.setString(3, messageId);
            insert.setString(4, subscriber);
            insert.setString(5, kind);
            insert.setString(6, body);
            insert.setTimestamp(7, timestamp(now), Columns.utc());
            insert.setTimestamp(8, timestamp(now), Columns.utc());
            insert.executeUpdate();
        }
    }

    /** A notice claimed for sending. */
    record ClaimedNotice(String id, URI url, String secret, String body, int attempts, long version) {}

    /** Notices not yet sent whose next attempt is due, with their producer's notification URL and secret. */
    private static final LeaseClaim DUE_NOTICES = new LeaseClaim(
            "courier_rm_notice",
            "n",
            "id",
            "next_attempt_at",
            "n.sent_at IS NULL",
            "courier_rm_producer p",
            "p.name = n.producer",
            "p.notification_url, n.body, n.attempts, p.signing_secret, p.name");

    /** Claims up to {@code limit} due notices for sending, by moving their next attempt to {@code leaseUntil}. */
    List<ClaimedNotice> claimNotices(Connection c, Instant now, Instant leaseUntil, int limit) throws SQLException {
        return DUE_NOTICES.claim(c, now, leaseUntil, limit, (rows, version) -> {
            String url = rows.getString(3);
            return new ClaimedNotice(
                    rows.getString(1),
                    url == null ? null : URI.create(url),
                    seal.open(rows.getString(7), rows.getString(6)),
                    rows.getString(4),
                    rows.getInt(5),
                    version);
        });
    }

    /** Records the outcome of sending a claimed notice: sent, or another attempt at {@code next}. */
    void noticeOutcome(Connection c, ClaimedNotice notice, boolean sent, Instant next, String error, Instant now)
            throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_notice SET sent_at = ?, "
                + "next_attempt_at = ?, attempts = attempts + 1, last_error = ?, version = version + 1 "
                + "WHERE id = ? AND version = ?")) {
            update.setTimestamp(1, sent ? timestamp(now) : null, Columns.utc());
            update.setTimestamp(2, sent ? null : timestamp(next), Columns.utc());
            update.setString(3, Content.error(error));
            update.setString(4, notice.id());
            update.setLong(5, notice.version());
            update.executeUpdate();
        }
    }
}
