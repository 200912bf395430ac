package dev.courier.reliable;

import dev.courier.access.Grants;
import dev.courier.access.Principals;
import dev.courier.platform.DatabaseClock;
import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Topics, their subscribers and their grants. A topic exists once it has a subscriber. Adding a subscriber first makes sure its
 * durable broker queue {@code topic.subscriber} exists and is that subscriber's (idempotent, outside any
 * transaction: the broker's management answers only after the request is sent; a queue of that name the broker
 * auto-created for an early consumer is replaced), then records it: messages confirmed from then on are
 * delivered to it. Adding it again updates its retry limit and delivery timeout.
 */
@Stateless
// Reads too: a read that answers 404 without a global transaction would run in a local transaction
// containment, which logs WLTC0017E at ERROR (and an FFDC) when the problem marks it for rollback.
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class Topics {

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Topics.class.getName());

    @Inject
    private ReliableDatabase database;

    @Inject
    private TopicStore store;

    @Inject
    private Publisher publisher;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    /**
     * @param retryLimit null for {@code courier.reliable.retry-limit} (10)
     * @param deliveryTimeout null for {@code courier.reliable.delivery-timeout} (60 s)
     * @param principals who may report its deliveries besides admins; null keeps those it has (none for a new one)
     * @return true when the subscriber is new
     * @throws ProblemException 400 for bad names or limits; 503 when the broker is unreachable
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean subscribe(
            String topic, String name, Integer retryLimit, Duration deliveryTimeout, Principals principals) {
        Subscriber subscriber = new Subscriber(
                Names.check("topic", topic),
                Names.check("name", name),
                retryLimit == null ? settings.retryLimit : retryLimit,
                deliveryTimeout == null ? settings.deliveryTimeout : deliveryTimeout,
                principals);
        if (subscriber.retryLimit() < 0 || subscriber.retryLimit() > 1000) {
            throw ProblemException.invalid("'retryLimit' must be from 0 to 1000");
        }
        if (subscriber.deliveryTimeout().toMillis() < 1
                || subscriber.deliveryTimeout().compareTo(Duration.ofDays(1)) > 0) {
            throw ProblemException.invalid("'deliveryTimeoutSeconds' must be from 0.001 to 86400");
        }
        if (publisher.subscribe(topic, name)) {
            LOG.warning("the broker had a queue " + Names.queue(topic, name) + " that was not subscriber " + name
                    + "'s of topic " + topic + " (auto-created for a consumer that came first?); it was replaced,"
                    + " and a consumer attached to it must be restarted");
        }
        try (Connection c = database.connection()) {
            try {
                return store.saveSubscriber(c, subscriber, clock.instant());
            } catch (SQLException e) {
                if (!"23505".equals(e.getSQLState())) {
                    throw e;
                }
                return store.saveSubscriber(c, subscriber, clock.instant()); // created concurrently: now an update
            }
        } catch (SQLException e) {
            throw new IllegalStateException("adding a subscriber failed", e);
        }
    }

    /**
     * Sets who besides the role may send to {@code topic} (prepare, confirm, cancel) and consume from it (report
     * deliveries consumed or failed); {@link Grants#NONE} lifts them. A topic may get grants before its first
     * subscriber. Takes effect for every call that starts after this commits.
     *
     * @throws ProblemException 400 for a bad topic name
     */
    public void grant(String topic, Grants grants) {
        Names.check("topic", topic);
        try (Connection c = database.connection()) {
            try {
                store.saveTopicGrants(c, topic, grants.encode(), clock.instant());
            } catch (SQLException e) {
                if (!"23505".equals(e.getSQLState())) {
                    throw e;
                }
                store.saveTopicGrants(c, topic, grants.encode(), clock.instant()); // created concurrently
            }
        } catch (SQLException e) {
            throw new IllegalStateException("setting the grants of topic " + topic + " failed", e);
        }
    }

    /** The principals who may report for subscriber {@code name} of {@code topic}; empty for no such subscriber. */
    public Optional<Principals> subscriberPrincipals(String topic, String name) {
        try (Connection c = database.connection()) {
            return store.subscriberPrincipals(c, topic, name).map(Principals::decode);
        } catch (SQLException e) {
            throw new IllegalStateException("reading the principals of subscriber " + name + " failed", e);
        }
    }

    /** The grants of every topic that has some. */
    public Map<String, Grants> grants() {
        try (Connection c = database.connection()) {
            Map<String, Grants> grants = new HashMap<>();
            store.topicGrants(c, null).forEach((topic, encoded) -> grants.put(topic, Grants.decode(encoded)));
            return grants;
        } catch (SQLException e) {
            throw new IllegalStateException("reading topic grants failed", e);
        }
    }

    /** The grants of {@code topic}; {@link Grants#NONE} when it has none. */
    public Grants grants(String topic) {
        try (Connection c = database.connection()) {
            return Grants.decode(store.topicGrants(c, topic).get(topic));
        } catch (SQLException e) {
            throw new IllegalStateException("reading the grants of topic " + topic + " failed", e);
        }
    }

    /**
     * The topic of message {@code id} with that topic's grants, and its producer with that one's principals; empty
     * for no such message. The caller checks them against whoever it acts for ({@link Grants#allow}).
     */
    public Optional<MessageAccess> accessOf(String id) {
        try (Connection c = database.connection()) {
            return store.topicOf(c, id)
                    .map(t -> new MessageAccess(
                            t.topic(),
                            Grants.decode(t.grants()),
                            t.producer(),
                            Principals.decode(t.producerPrincipals())));
        } catch (SQLException e) {
            throw new IllegalStateException("reading the grants of message " + id + " failed", e);
        }
    }

    /** Subscribers of {@code topic}. @throws UnknownResourceException 404 for a topic without subscribers */
    public List<Subscriber> subscribers(String topic) {
        List<Subscriber> found = subscribersOf(topic);
        if (found.isEmpty()) {
            throw new UnknownResourceException("topic", topic);
        }
        return found;
    }

    /** Subscribers of {@code topic}, none for a topic nobody subscribed to (it may have grants already). */
    public List<Subscriber> subscribersOf(String topic) {
        Names.check("topic", topic);
        return all(topic);
    }

    /** Every subscriber of every topic, by topic and name. */
    public List<Subscriber> all() {
        return all(null);
    }

    private List<Subscriber> all(String topic) {
        try (Connection c = database.connection()) {
            return store.subscribers(c, topic);
        } catch (SQLException e) {
            throw new IllegalStateException("listing subscribers failed", e);
        }
    }
}
