package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.Tag;

/**
 * What the reliable message service holds now, as gauge readings: {@code courier_topic_messages{topic, state}}
 * (pending, sent, dead), {@code courier_subscriber_deliveries{topic, subscriber, state}} (delivered: in delivery,
 * not yet consumed; dead), {@code courier_producer_pending_messages{producer}} and
 * {@code courier_producer_circuit_open{producer}} (1 while this server does not call the producer) and
 * {@code courier_relay_outbox_entries} (confirmed copies not yet on the broker, for all servers) and
 * {@code courier_relay_oldest_entry_seconds} (how long the oldest of them has waited: growing, the outbox is stuck). Every topic,
 * subscriber and producer has its gauges, at 0 when nothing is in that state.
 */
@ApplicationScoped
public class ReliableReadings {

    @Inject
    private ReliableDatabase database;

    @Inject
    private TopicStore topics;

    @Inject
    private ProducerStore producers;

    @Inject
    private MessageStore messages;

    @Inject
    private LedgerStore ledger;

    @Inject
    private OutboxStore outbox;

    @Inject
    private ProducerGates gates;

    @Inject
    private DatabaseClock clock;

    public Map<MetricID, Double> read() {
        Map<MetricID, Double> readings = new HashMap<>();
        try (Connection c = database.connection()) {
            for (Subscriber s : topics.subscribers(c, null)) {
                Tag topic = new Tag("topic", s.topic());
                for (MessageState state :
                        new MessageState[] {MessageState.PENDING, MessageState.SENT, MessageState.DEAD}) {
                    readings.put(new MetricID("courier_topic_messages", topic, state(state)), 0.0);
                }
                for (DeliveryState state : new DeliveryState[] {DeliveryState.DELIVERED, DeliveryState.DEAD}) {
                    readings.put(
                            new MetricID(
                                    "courier_subscriber_deliveries",
                                    topic,
                                    new Tag("subscriber", s.name()),
                                    state(state)),
                            0.0);
                }
            }
            for (ReliableDatabase.Count count : messages.messageCounts(c)) {
                readings.put(
                        new MetricID(
                                "courier_topic_messages",
                                new Tag("topic", count.keys().get(0)),
                                new Tag("state", count.keys().get(1).toLowerCase(Locale.ROOT))),
                        (double) count.count());
            }
            for (ReliableDatabase.Count count : ledger.deliveryCounts(c)) {
                readings.put(
                        new MetricID(
                                "courier_subscriber_deliveries",
                                new Tag("topic", count.keys().get(0)),
                                new Tag("subscriber", count.keys().get(1)),
                                new Tag("state", count.keys().get(2).toLowerCase(Locale.ROOT))),
                        (double) count.count());
            }
            Map<String, Long> pending = new HashMap<>();
            messages.pendingByProducer(c)
                    .forEach(count -> pending.put(count.keys().get(0), count.count()));
            for (Producer producer : producers.producers(c)) {
                Tag name = new Tag("producer", producer.name());
                readings.put(new MetricID("courier_producer_pending_messages", name), (double)
                        pending.getOrDefault(producer.name(), 0L));
                readings.put(
                        new MetricID("courier_producer_circuit_open", name),
                        gates.of(producer.name()).circuit(clock.instant()) == Circuit.OPEN ? 1.0 : 0.0);
            }
            // The one reading of a broker that is down or slow: confirms go on, the relay's backlog grows.
            readings.put(new MetricID("courier_relay_outbox_entries"), (double) outbox.backlog(c));
            readings.put(
                    new MetricID("courier_relay_oldest_entry_seconds"),
                    outbox.oldest(c)
                            .map(at -> Math.max(
                                    0,
                                    java.time.Duration.between(at, clock.instant())
                                                    .toMillis()
                                            / 1000.0))
                            .orElse(0.0));
        } catch (SQLException e) {
            throw new IllegalStateException("reading the reliable message counts failed", e);
        }
        return readings;
    }

    private static Tag state(Enum<?> state) {
        return new Tag("state", state.name().toLowerCase(Locale.ROOT));
    }
}
