package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import dev.courier.platform.JobTurns;
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
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps finished reliable messages for {@code courier.reliable.retention} (7 days): once a minute of database time,
 * on one server at a time (the {@code reliable.purge} turn of {@link JobTurns}, held for three minutes and renewed
 * by each run), deletes completed and cancelled messages finished before then, with their ledger, history and
 * notices, {@code courier.reliable.batch-size} messages to a transaction. A purge is idempotent, so a run that
 * overlaps another's (an owner paused past its turn) deletes nothing twice. Its timer ticks with the reconciler's
 * interval and compares database time, so a purge that failed is tried again at the next tick, not a minute later.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Retention {

    private static final Logger LOG = Logger.getLogger(Retention.class.getName());
    static final String JOB = "reliable.purge";
    private static final Duration EVERY = Duration.ofMinutes(1);

    @Resource
    private TimerService timers;

    @Inject
    private JobTurns turns;

    @Inject
    private ReconcileSteps steps;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    private volatile Instant lastPurge = Instant.MIN;
    private final AtomicBoolean running = new AtomicBoolean();

    @PostConstruct
    void schedule() {
        long interval = settings.reconcileInterval.toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig(JOB, false));
    }

    @Timeout
    void onTimer(Timer timer) {
        // Ticks never overlap on one server: a long purge is not joined by a second.
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            Instant now = clock.instant();
            if (!now.isBefore(lastPurge.plus(EVERY))) {
                purge();
                lastPurge = now;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "purging finished reliable messages failed; it is tried again at the next tick", e);
        } finally {
            running.set(false);
        }
    }

    /** One purge, if it is this server's turn. @return the messages deleted, or empty when another server purges */
    public Optional<Integer> purge() {
        if (turns.take(JOB, EVERY.multipliedBy(3)).isEmpty()) {
            return Optional.empty();
        }
        Instant before = clock.instant().minus(settings.retention);
        int purged = 0;
        int batch;
        do {
            batch = steps.purge(before); // each batch commits on its own
            purged += batch;
        } while (batch == settings.batchSize);
        return Optional.of(purged);
    }
}
