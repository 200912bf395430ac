package dev.courier.reliable;

import static dev.courier.platform.Columns.instant;
import static dev.courier.platform.Columns.timestamp;

import dev.courier.access.Principals;
import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The producers ({@code courier_rm_producer}): where Courier checks back and whom it notifies, and the secret it
 * signs those calls with. Every method runs in the caller's transaction on the connection it is given.
 */
@ApplicationScoped
class ProducerStore {

    @Inject
    private SecretSeal seal;

    ProducerStore() {}

    /** For tests outside a container. */
    ProducerStore(SecretSeal seal) {
        this.seal = seal;
    }

    /**
     * Updates a producer's URLs and principals (null keeps them), or creates it with {@code newSecret} as its
     * signing secret (an update keeps the secret it has). @return true when the producer was created, false when
     * updated
     */
    boolean saveProducer(
            Connection c,
            String name,
            URI checkBack,
            URI notification,
            Principals principals,
            String newSecret,
            Instant now)
            throws SQLException {
        String acting = principals == null ? null : principals.encode();
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_producer SET check_back_url = ?, "
                + "notification_url = ?, principals = COALESCE(CAST(? AS VARCHAR(4000)), principals), "
                + "updated_at = ? WHERE name = ?")) {
            update.setString(1, checkBack.toString());
            update.setString(2, notification == null ? null : notification.toString());
            update.setString(3, acting);
            update.setTimestamp(4, timestamp(now), Columns.utc());
            update.setString(5, name);
            if (update.executeUpdate() == 1) {
                return false;
            }
        }
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO courier_rm_producer (name, check_back_url, "
                        + "notification_url, created_at, updated_at, signing_secret, principals) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, name);
            insert.setString(2, checkBack.toString());
            insert.setString(3, notification == null ? null : notification.toString());
            insert.setTimestamp(4, timestamp(now), Columns.utc());
            insert.setTimestamp(5, timestamp(now), Columns.utc());
            insert.setString(6, seal.seal(name, newSecret));
            insert.setString(7, acting);
            insert.executeUpdate();
            return true;
        }
    }

    /** A producer's signing secret; empty for no such producer or one registered before signing existed. */
    Optional<String> secret(Connection c, String name) throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT signing_secret FROM courier_rm_producer WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.ofNullable(seal.open(name, rows.getString(1))) : Optional.empty();
            }
        }
    }

    /** Replaces a producer's signing secret. @return false when there is no such producer */
    boolean replaceSecret(Connection c, String name, String secret, Instant now) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE courier_rm_producer SET signing_secret = ?, " + "updated_at = ? WHERE name = ?")) {
            update.setString(1, seal.seal(name, secret));
            update.setTimestamp(2, timestamp(now), Columns.utc());
            update.setString(3, name);
            return ReliableDatabase.exactlyOneOrNone(update.executeUpdate());
        }
    }

    Optional<Producer> producer(Connection c, String name) throws SQLException {
        List<Producer> found = producers(c, " WHERE name = ?", name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * Whether {@code producer} may prepare on {@code topic}, in one statement (prepare's only read): empty for an
     * unknown producer, else whether the topic has a subscriber.
     */
    Optional<Boolean> topicHasSubscribers(Connection c, String producer, String topic) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT CASE WHEN EXISTS (SELECT 1 FROM "
                + "courier_rm_subscriber WHERE topic = ?) THEN 1 ELSE 0 END FROM courier_rm_producer WHERE name = ?")) {
            select.setString(1, topic);
            select.setString(2, producer);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(rows.getInt(1) == 1) : Optional.empty();
            }
        }
    }

    List<Producer> producers(Connection c) throws SQLException {
        return producers(c, " ORDER BY name", null);
    }

    private static List<Producer> producers(Connection c, String where, String name) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT name, check_back_url, notification_url, created_at, principals FROM courier_rm_producer"
                        + where)) {
            if (name != null) {
                select.setString(1, name);
            }
            try (ResultSet rows = select.executeQuery()) {
                List<Producer> producers = new ArrayList<>();
                while (rows.next()) {
                    String notification = rows.getString(3);
                    producers.add(new Producer(
                            rows.getString(1),
                            URI.create(rows.getString(2)),
                            notification == null ? null : URI.create(notification),
                            Principals.decode(rows.getString(5)),
                            instant(rows, 4)));
                }
                return producers;
            }
        }
    }
}
