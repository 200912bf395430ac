package dev.courier.scenario;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Runs the RMS mode's consumers: the inventory service reading {@code scenario-orders.inventory} and the orders
 * service reading {@code scenario-replies.orders}, each a loop taking one message per transaction
 * ({@link RmsSteps}). First it sets both services up with Courier, retrying until the broker answers.
 */
@Singleton
@Startup
@DependsOn({"SchemaMigration", "LabSchema"})
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class RmsWorkers {

    private static final Logger LOG = Logger.getLogger(RmsWorkers.class.getName());
    private static final int CONSUMERS = 2;

    @Inject
    private RmsParties parties;

    @Inject
    private RmsSteps steps;

    @Inject
    private SlowConsumer slow;

    // Threads of their own: long-running loops on the managed executor would hold the threads that serve requests.
    @Resource
    private ManagedThreadFactory threads;

    private final AtomicBoolean running = new AtomicBoolean(true);

    @PostConstruct
    void start() {
        threads.newThread(() -> {
                    while (running.get() && !parties.ready()) {
                        try {
                            parties.setUp();
                        } catch (Exception e) {
                            LOG.info("rms mode not set up yet (" + e + "); retrying");
                            pause(1000);
                        }
                    }
                    if (running.get()) {
                        for (int i = 0; i < CONSUMERS; i++) { // as many as the queue mode's workers
                            int instance = i;
                            threads.newThread(() -> loop(true, instance)).start();
                            threads.newThread(() -> loop(false, instance)).start();
                        }
                    }
                })
                .start();
    }

    @PreDestroy
    void stop() {
        running.set(false);
    }

    private void loop(boolean inventory, int instance) {
        while (running.get()) {
            try {
                long start = System.nanoTime();
                boolean got = inventory ? steps.reserveOne() : steps.settleOne();
                if (!got) {
                    continue; // the receive already waited
                }
                if (inventory) {
                    slow.pace(Mode.RMS, instance, System.nanoTime() - start);
                }
            } catch (RuntimeException e) {
                // Rolled back: the broker gives the message again, Courier redelivers after its timeout.
                LOG.fine("rms " + (inventory ? "inventory" : "orders") + " consumer: " + e);
                pause(100);
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
