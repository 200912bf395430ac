package dev.courier.queue;

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
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Housekeeping every {@code courier.queue.sweep-interval} (5 s), on one server at a time: moves messages that
 * ran out of attempts to dead (so they show up there even when nobody receives from the queue), purges dead
 * messages older than {@code courier.queue.dead-retention} and forgets idempotency keys whose window is over and
 * whose message is gone.
 *
 * <p>Every queue database is swept, each on its own turn. One server at a time per database: a sweep starts only
 * when this server holds the sweeper's turn there ({@link JobTurns},
 * renewed by each sweep, for three intervals of database time). Each step is a short transaction per queue that skips rows others hold and changes at most a page of rows;
 * every change is fenced, so even two overlapping sweeps (an owner paused past its lease) do nothing twice.
 * Each sweep is recorded in {@code courier_sweep_run} (kept a day).
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Sweeper {

    private static final Logger LOG = Logger.getLogger(Sweeper.class.getName());
    /** Rows one step changes at most; a queue with more is worked through page by page within the sweep. */
    static final int PAGE = 500;

    /** The sweeper's row in {@code courier_job_lease}. */
    static final String JOB = "queue.sweeper";

    private static final int MAX_PAGES = 100;

    @Resource
    private TimerService timers;

    @Inject
    private SweepSteps steps;

    @Inject
    private QueueSettings settings;

    @Inject
    private JobTurns turns;

    @Inject
    private QueueDatabases databases;

    @PostConstruct
    void schedule() {
        long interval = settings.sweepInterval.toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("courier.queue.sweep", false));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void onTimer(Timer timer) {
        for (QueueDatabase database : databases.all()) {
            try {
                sweep(database);
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "queue sweep of database " + database.name() + " failed; it runs again in "
                                + settings.sweepInterval,
                        e);
            }
        }
    }

    /** This server's name in the sweeper's lease and in the runs it records. */
    public String owner() {
        return turns.owner();
    }

    /**
     * One sweep of Courier's own database, if it is this server's turn there. Not transactional: each step commits
     * on its own.
     *
     * @return the sweep, or empty when another server holds the sweeper's turn
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Optional<SweepRun> sweep() {
        return sweep(databases.courier());
    }

    /** One sweep of {@code database}, if it is this server's turn there: each database has its own turn. */
    private Optional<SweepRun> sweep(QueueDatabase database) {
        Optional<Instant> turn = database == databases.courier()
                ? turns.take(JOB, settings.sweepInterval.multipliedBy(3))
                : turns.take(JOB, settings.sweepInterval.multipliedBy(3), database.dataSource(), database.clock());
        if (turn.isEmpty()) {
            return Optional.empty();
        }
        int dead = 0;
        for (QueueSpec queue : steps.queues(database)) {
            dead += pages(() -> steps.exhaust(database, queue, PAGE));
        }
        int purged = pages(() -> steps.purgeDead(database, settings.deadRetention, PAGE));
        pages(() -> steps.forgetKeys(database, PAGE));
        if (dead > 0) {
            // Logged once per sweep; each failed attempt before it is only in the history. A warning, not an
            // error: the queue did what its maxAttempts said, and the messages wait in dead letters for an
            // operator (courier_queue_messages{state="dead"} counts them, GET /api/queues/{queue}/dead lists them).
            LOG.warning("messages out of attempts moved to dead letters in database " + database.name() + ": " + dead);
        }
        return Optional.of(steps.record(database, turns.owner(), turn.get(), dead, purged, Duration.ofDays(1)));
    }

    /** Repeats a paged step while it fills its page, up to a bound per sweep (the next sweep goes on). */
    private static int pages(IntSupplier step) {
        int total = 0;
        for (int page = 0; page < MAX_PAGES; page++) {
            int done = step.getAsInt();
            total += done;
            if (done < PAGE) {
                break;
            }
        }
        return total;
    }
}
