package dev.courier.queue;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/**
 * Announces this server on the wake-up topic every {@code courier.queue.presence-interval} (5 s), so that the
 * other servers know someone reads their wake-ups ({@link WakeUps}). Nothing when cross-server wake-ups are off.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Presence {

    /** The first announcement waits this long after start: the topic's listener starts with the application. */
    private static final long FIRST_MILLIS = 1000;

    @Resource
    private TimerService timers;

    @Inject
    private QueueSettings settings;

    @Inject
    private WakeUps wakeUps;

    @PostConstruct
    void schedule() {
        if (settings.crossServerWakeUps) {
            timers.createIntervalTimer(
                    FIRST_MILLIS, settings.presence().toMillis(), new TimerConfig("courier.queue.presence", false));
        }
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void onTimer() {
        wakeUps.announce();
    }
}
