package dev.courier.scenario;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * Sets the RMS mode's services up once the broker and Courier answer, then starts their message-driven beans: an
 * EJB timer tries every second until it succeeds, then cancels itself. The beans' endpoints start only after
 * their subscribers are registered (their activation specs have {@code autoStart="false"}): a bean attached to a
 * subscriber queue before Courier created it would make the broker create a queue of that name that no copy
 * reaches. The timer waits out Courier being down however long; each round's calls are guarded by
 * {@link RmsParties#setUp}'s timeout and retries.
 */
@Singleton
@Startup
@DependsOn({"SchemaMigration", "LabSchema"})
public class RmsSetUp {

    private static final Logger LOG = Logger.getLogger(RmsSetUp.class.getName());

    @Inject
    private RmsParties parties;

    @Resource
    private TimerService timers;

    @PostConstruct
    void schedule() {
        timers.createIntervalTimer(0, 1000, new TimerConfig("rms set-up", false));
    }

    // No transaction: set-up is a row of calls to Courier that each commit on their own (so they can be retried);
    // inside the timer's transaction a refused one would mark it for rollback, undoing the others.
    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void tryOnce(Timer timer) {
        try {
            parties.setUp();
        } catch (Exception e) {
            LOG.info("rms mode not set up yet (" + e + "); retrying");
            return;
        }
        if (ListenerEndpoints.resume("RmsInventoryListener", "RmsRepliesListener")) {
            timer.cancel();
            LOG.info("rms mode set up; its listeners started");
        }
    }
}
