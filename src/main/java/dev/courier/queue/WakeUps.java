package dev.courier.queue;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSRuntimeException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the other servers that a send to a queue committed, so that their waiting receivers claim at once
 * instead of at their next poll, and that a queue's definition changed, so that they forget their copy of it. The
 * channel is the broker Courier already runs: a non-persistent message on the topic {@value #TOPIC}, which every
 * server's {@link WakeUpListener} reads. Best effort by design: a lost wake-up (broker down, server starting)
 * only delays a receiver until its next poll, never loses a message.
 *
 * <p>Off the committing thread, and at most one per queue per {@code courier.queue.wake-up-interval} (20 ms): a
 * send to a queue that has not woken anyone lately publishes at once; sends within the interval after it share
 * one wake-up at its end. Under load, when receivers rarely wait, the broker carries a few dozen wake-ups a
 * second per queue instead of one per send (one per send halved the send rate on two cores).
 *
 * <p>Only while another server listens: every server announces itself a second after it starts and then every
 * {@code courier.queue.presence-interval} (5 s), and answers at once each server it had not heard of (so two
 * servers know of each other about a second after the later one started); a server that has heard no other for
 * three intervals publishes no wake-ups (a server alone spent 3–8 % of its CPU on them). A server of a version
 * before this never announces itself: until all are upgraded, receivers waiting on it poll.
 */
@ApplicationScoped
class WakeUps {

    static final String TOPIC = "courier.queue.wakeups";
    static final String ORIGIN = "origin";
    /** What a message on the topic says: {@link #WAKE} (also when absent), {@link #SETTINGS} or {@link #PRESENCE}. */
    static final String KIND = "kind";
    /** A send to the queue named in the body committed. */
    static final String WAKE = "wake";
    /** The definition of the queue named in the body changed or went (receivers are not woken by it). */
    static final String SETTINGS = "settings";
    /** The sending server is up and listening. */
    static final String PRESENCE = "presence";

    private static final Logger LOG = Logger.getLogger(WakeUps.class.getName());

    /** This server's mark on its wake-ups, so that its own listener skips them (local waiters woke directly). */
    private final String origin = UUID.randomUUID().toString();

    private final Set<QueueName> scheduled = ConcurrentHashMap.newKeySet();
    private final Map<QueueName, Long> lastSent = new ConcurrentHashMap<>();

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    private ManagedScheduledExecutorService scheduler;

    @Inject
    private QueueSettings settings;

    private OtherServers others;

    /** Wakes other servers' receivers on {@code queue}; returns at once. */
    void publish(QueueName queue) {
        if (!settings.crossServerWakeUps || !others.listening(System.nanoTime()) || !scheduled.add(queue)) {
            return; // off, nobody else listens, or a wake-up for this queue is already scheduled and covers this
        }
        long interval = settings.wakeUpInterval.toNanos();
        long wait =
                Math.max(0, lastSent.getOrDefault(queue, System.nanoTime() - interval) + interval - System.nanoTime());
        try {
            scheduler.schedule(() -> wake(queue), wait, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            scheduled.remove(queue);
            LOG.log(Level.FINE, "wake-up for " + queue + " not scheduled; other servers poll", e);
        }
    }

    /**
     * Tells the other servers that {@code queue}'s definition changed or went, so that they forget their copy
     * ({@link QueueSpecs}); returns at once. Sent whether or not wake-ups are on: definitions change rarely.
     */
    void settingsChanged(QueueName queue) {
        try {
            scheduler.execute(() -> send(SETTINGS, queue.value()));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "notice of " + queue + "'s new settings not sent; other servers re-read them soon", e);
        }
    }

    /** Tells the other servers this one listens: on its presence timer, and in answer to a server new to it. */
    void announce() {
        send(PRESENCE, origin);
    }

    /** The server {@code origin} spoke on the topic, so it listens; one new to this server is answered at once. */
    void heard(String origin) {
        if (others.heard(origin, System.nanoTime())) {
            try {
                scheduler.execute(this::announce);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "presence not answered; the next announcement tells the other server", e);
            }
        }
    }

    @PostConstruct
    void start() {
        others = new OtherServers(settings.presence());
    }

    boolean isOwn(String messageOrigin) {
        return origin.equals(messageOrigin);
    }

    private void wake(QueueName queue) {
        lastSent.put(queue, System.nanoTime());
        scheduled.remove(queue); // before sending: a send committed from now on schedules a wake-up of its own
        send(WAKE, queue.value());
    }

    private void send(String kind, String body) {
        try (JMSContext jms = connectionFactory.createContext()) {
            jms.createProducer()
                    .setDeliveryMode(DeliveryMode.NON_PERSISTENT)
                    .setProperty(ORIGIN, origin)
                    .setProperty(KIND, kind)
                    .send(jms.createTopic(TOPIC), body);
        } catch (JMSRuntimeException e) {
            LOG.log(Level.FINE, kind + " notice (" + body + ") not sent; other servers poll", e);
        }
    }
}
