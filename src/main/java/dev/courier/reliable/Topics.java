package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Topics and their subscribers. A topic exists once it has a subscriber. Adding a subscriber first makes sure its
 * durable broker queue {@code topic.subscriber} exists (idempotent, outside any transaction: the broker's
 * management answers only after the request is sent), then records it: messages confirmed from then on are
 * delivered to it. Adding it again updates its retry limit and delivery timeout.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class Topics {

    @Inject
    private ReliableStore store;

    @Inject
    private Publisher publisher;

    @Inject
    private ReliableSettings settings;

    @Inject
    private Clock clock;

    /**
     * @param retryLimit null for {@code courier.reliable.retry-limit} (10)
     * @param deliveryTimeout null for {@code courier.reliable.delivery-timeout} (60 s)
     * @return true when the subscriber is new
     * @throws ProblemException 400 for bad names or limits; 503 when the broker is unreachable
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean subscribe(String topic, String name, Integer retryLimit, Duration deliveryTimeout) {
        Subscriber subscriber = new Subscriber(Names.check("topic", topic), Names.check("name", name),
                retryLimit == null ? settings.retryLimit : retryLimit,
                deliveryTimeout == null ? settings.deliveryTimeout : deliveryTimeout);
        if (subscriber.retryLimit() < 0 || subscriber.retryLimit() > 1000) {
            throw ProblemException.invalid("'retryLimit' must be from 0 to 1000");
        }
        if (subscriber.deliveryTimeout().toMillis() < 1 || subscriber.deliveryTimeout().compareTo(Duration.ofDays(1)) > 0) {
            throw ProblemException.invalid("'deliveryTimeoutSeconds' must be from 0.001 to 86400");
        }
        publisher.subscribe(topic, name);
        try (Connection c = store.connection()) {
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

    /** Subscribers of {@code topic}. @throws UnknownResourceException 404 for a topic without subscribers */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<Subscriber> subscribers(String topic) {
        Names.check("topic", topic);
        List<Subscriber> found = all(topic);
        if (found.isEmpty()) {
            throw new UnknownResourceException("topic", topic);
        }
        return found;
    }

    /** Every subscriber of every topic, by topic and name. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<Subscriber> all() {
        return all(null);
    }

    private List<Subscriber> all(String topic) {
        try (Connection c = store.connection()) {
            return store.subscribers(c, topic);
        } catch (SQLException e) {
            throw new IllegalStateException("listing subscribers failed", e);
        }
    }
}
