package dev.courier.queue;

import static dev.courier.queue.MessageStore.timestamp;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Housekeeping every {@code courier.queue.sweep-interval} (5 s): moves messages that ran out of attempts to dead
 * (so they show up there even when nobody receives from the queue), purges dead messages older than
 * {@code courier.queue.dead-retention} and forgets expired idempotency keys. Safe on several servers at once:
 * every change is a fenced single-row update or a delete by age.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Sweeper {

    private static final Logger LOG = Logger.getLogger(Sweeper.class.getName());

    @Resource
    private TimerService timers;

    @Inject
    private MessageStore store;

    @Inject
    private QueueSettings settings;

    @Inject
    private Clock clock;

    @PostConstruct
    void schedule() {
        long interval = settings.sweepInterval.toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("courier.queue.sweep", false));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    void onTimer(Timer timer) {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "queue sweep failed; it runs again in " + settings.sweepInterval, e);
        }
    }

    /** One sweep, in the current transaction. @return how many messages moved to dead */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public int sweep() {
        Instant now = clock.instant();
        try (Connection connection = store.connection()) {
            int dead = 0;
            for (QueueSpec queue : store.queues(connection)) {
                dead += store.exhaust(connection, queue, now);
            }
            store.purgeDead(connection, now.minus(settings.deadRetention));
            try (PreparedStatement keys = connection.prepareStatement(
                    "DELETE FROM courier_idempotency_key WHERE expires_at <= ?")) {
                keys.setTimestamp(1, timestamp(now));
                keys.executeUpdate();
            }
            if (dead > 0) {
                // The move to dead is logged once, loudly; each failed attempt before it is only in the history.
                LOG.severe("messages out of attempts moved to dead: " + dead);
            }
            return dead;
        } catch (SQLException e) {
            throw new IllegalStateException("queue sweep failed", e);
        }
    }
}
