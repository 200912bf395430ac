package dev.courier.reliable;

import static dev.courier.platform.Columns.timestamp;

import dev.courier.access.Principals;
import dev.courier.platform.Columns;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Topics: their subscribers ({@code courier_rm_subscriber}) and their grants ({@code courier_rm_topic}). Every
 * method runs in the caller's transaction on the connection it is given.
 */
@ApplicationScoped
class TopicStore {

    /**
     * Saves a subscriber; its principals null keeps those it has (none for a new one).
     *
     * @return true when the subscriber was created, false when updated
     */
    boolean saveSubscriber(Connection c, Subscriber s, Instant now) throws SQLException {
        String acting = s.principals() == null ? null : s.principals().encode();
        try (PreparedStatement update = c.prepareStatement("UPDATE courier_rm_subscriber SET retry_limit = ?, "
                + "delivery_timeout_ms = ?, principals = COALESCE(CAST(? AS VARCHAR(4000)), principals), "
                + "updated_at = ? WHERE topic = ? AND name = ?")) {
            update.setInt(1, s.retryLimit());
            update.setLong(2, s.deliveryTimeout().toMillis());
            update.setString(3, acting);
            update.setTimestamp(4, timestamp(now), Columns.utc());
            update.setString(5, s.topic());
            update.setString(6, s.name());
            if (update.executeUpdate() == 1) {
                return false;
            }
        }
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO courier_rm_subscriber (topic, name, "
                        + "retry_limit, delivery_timeout_ms, created_at, updated_at, principals) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, s.topic());
            insert.setString(2, s.name());
            insert.setInt(3, s.retryLimit());
            insert.setLong(4, s.deliveryTimeout().toMillis());
            insert.setTimestamp(5, timestamp(now), Columns.utc());
            insert.setTimestamp(6, timestamp(now), Columns.utc());
            insert.setString(7, acting);
            insert.executeUpdate();
            return true;
        }
    }

    /** Subscribers of {@code topic}, or of every topic when it is null, by topic and name. */
    List<Subscriber> subscribers(Connection c, String topic) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(
                "SELECT topic, name, retry_limit, delivery_timeout_ms, " + "principals FROM courier_rm_subscriber"
                        + (topic == null ? "" : " WHERE topic = ?") + " ORDER BY topic, name")) {
            if (topic != null) {
                select.setString(1, topic);
            }
            try (ResultSet rows = select.executeQuery()) {
                List<Subscriber> subscribers = new ArrayList<>();
                while (rows.next()) {
                    subscribers.add(new Subscriber(
                            rows.getString(1),
                            rows.getString(2),
                            rows.getInt(3),
                            Duration.ofMillis(rows.getLong(4)),
                            Principals.decode(rows.getString(5))));
                }
                return subscribers;
            }
        }
    }

    /** Sets a topic's grants (encoded, null for none), creating its row on first use. */
    void saveTopicGrants(Connection c, String topic, String grants, Instant now) throws SQLException {
        try (PreparedStatement update =
                c.prepareStatement("UPDATE courier_rm_topic SET grants = ?, updated_at = ? WHERE name = ?")) {
            update.setString(1, grants);
            update.setTimestamp(2, timestamp(now), Columns.utc());
            update.setString(3, topic);
            if (update.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement insert =
                c.prepareStatement("INSERT INTO courier_rm_topic (name, grants, updated_at) VALUES (?, ?, ?)")) {
            insert.setString(1, topic);
            insert.setString(2, grants);
            insert.setTimestamp(3, timestamp(now), Columns.utc());
            insert.executeUpdate();
        }
    }

    /** Encoded grants by topic, of {@code topic} only unless it is null; topics without grants are absent. */
    Map<String, String> topicGrants(Connection c, String topic) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT name, grants FROM courier_rm_topic WHERE "
                + "grants IS NOT NULL" + (topic == null ? "" : " AND name = ?"))) {
            if (topic != null) {
                select.setString(1, topic);
            }
            Map<String, String> grants = new HashMap<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    grants.put(rows.getString(1), rows.getString(2));
                }
            }
            return grants;
        }
    }

    /** A message's topic and that topic's encoded grants (null: none), its producer and that one's principals. */
    record TopicOf(String topic, String grants, String producer, String producerPrincipals) {}

    /** The topic of message {@code id} with its grants; empty for no such message. */
    Optional<TopicOf> topicOf(Connection c, String id) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT m.topic, t.grants, m.producer, p.principals "
                + "FROM courier_rm_message m LEFT JOIN courier_rm_topic t ON t.name = m.topic "
                + "LEFT JOIN courier_rm_producer p ON p.name = m.producer WHERE m.id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next()
                        ? Optional.of(
                                new TopicOf(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4)))
                        : Optional.empty();
            }
        }
    }

    /** The principals of a subscriber, encoded (empty string for none); empty for no such subscriber. */
    Optional<String> subscriberPrincipals(Connection c, String topic, String name) throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT principals FROM courier_rm_subscriber WHERE topic = ? AND name = ?")) {
            select.setString(1, topic);
            select.setString(2, name);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(rows.getString(1) == null ? "" : rows.getString(1)) : Optional.empty();
            }
        }
    }
}
