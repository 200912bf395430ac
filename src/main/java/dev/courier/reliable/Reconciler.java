package dev.courier.reliable;

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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Settles what the protocol's happy path left open, every {@code courier.reliable.reconcile-interval} (1 s): one
 * timer whose tick runs each job in turn, in transactions of their own ({@link ReconcileSteps}):
 * <ul>
 * <li>{@link CheckBacks}: pending messages past their timeout are asked about, paced per producer;
 * <li>{@link Redeliveries}: deliveries whose subscriber did not report in time are sent again, or buried;
 * <li>{@link Notices} to producers, retried until answered with 2xx.
 * </ul>
 * Ticks never overlap on one server (a tick that finds the previous one still running does nothing); the calls a
 * tick starts may outlive it. On several servers the claims keep each due item to one. The purge is not a tick's
 * job: {@link Retention}.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());

    @Resource
    private TimerService timers;

    @Inject
    private CheckBacks checkBacks;

    @Inject
    private Redeliveries redeliveries;

    @Inject
    private Notices notices;

    @Inject
    private ReliableSettings settings;

    private final AtomicBoolean running = new AtomicBoolean();

    @PostConstruct
    void schedule() {
        long interval = settings.reconcileInterval.toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("courier.reliable.reconcile", false));
    }

    @Timeout
    void onTimer(Timer timer) {
        if (running.compareAndSet(false, true)) {
            try {
                reconcile();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "reconcile failed; it runs again in " + settings.reconcileInterval, e);
            } finally {
                running.set(false);
            }
        }
    }

    /**
     * One round: starts due check-backs ({@link CheckBacks#run}), redelivers due deliveries for at most one interval
     * ({@link Redeliveries#run}), starts due notices ({@link Notices#run}). A job that fails ends the round.
     */
    public void reconcile() {
        checkBacks.run();
        redeliveries.run();
        notices.run();
    }
}
