package dev.courier.reliable;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes what confirms, redeliveries and replays committed to the outbox: a batch at a time, each batch one
 * local broker transaction, committed before the database marks the batch relayed in its own local transaction.
 * Neither is ever part of a two-phase commit, and a slow or unreachable broker holds back only this relay: confirms
 * commit regardless, and their messages go out once the broker answers again.
 *
 * <p>Guarantee: every committed outbox entry reaches the broker at least once. A crash (or a failed database
 * commit) after the broker committed a batch and before the batch was marked leaves its entries in the outbox, and
 * they are published again; each copy's duplicate id makes the broker drop those it has (a batch it refuses for one
 * is published copy by copy). Consumers remove any other duplicate (a broker's redelivery) with their inbox
 * ({@link dev.courier.client.ReliableConsumer}). Each server runs one relay; on PostgreSQL a relay locks the rows of
 * its batch and skips rows another holds, so in normal operation no two servers publish the same entry. A relay
 * wakes when a transaction on its server that wrote to the outbox commits, and otherwise looks every
 * {@code courier.reliable.relay-idle-interval} (1 s), which picks up entries a stopped server left. The relay
 * outlives any failure of a batch, errors included; {@code courier_relay_oldest_entry_seconds} says how long the
 * oldest entry has waited, the outbox's progress for all servers.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Relay {

    private static final Logger LOG = Logger.getLogger(Relay.class.getName());
    private static final Duration MAX_PAUSE = Duration.ofSeconds(5);

    @Resource
    private ManagedThreadFactory threads;

    @Inject
    private RelayBatches batches;

    @Inject
    private RelaySignal signal;

    @Inject
    private ReliableSettings settings;

    @Inject
    private dev.courier.platform.FaultInjection faults;

    /** Fault point: the relay's thread is about to relay, outside any batch. */
    static final String TURN = "reliable.relay.turn";

    private volatile boolean running = true;
    private volatile Thread thread;

    @PostConstruct
    void start() {
        thread = threads.newThread(this::run);
        thread.setName("courier-relay");
        thread.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        signal.wake();
        Thread t = thread;
        if (t != null) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        int failures = 0;
        String lastFailure = null;
        while (running) {
            try {
                if (failures == 0) {
                    signal.await(settings.relayIdleInterval);
                } else {
                    // After a failure, wait out the pause even if confirms wake us: the broker is likely still down.
                    Thread.sleep(pause(failures).toMillis());
                }
                faults.checkpoint(TURN);
                while (running && batches.publish()) {
                    // a full batch: more is waiting
                }
                if (failures > 0) {
                    LOG.info("the relay publishes again after " + failures + " failed attempts");
                }
                failures = 0;
                lastFailure = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RelayBatches.Failure | RuntimeException | Error e) {
                // An Error too (a batch too large for the heap, a class the adapter failed to load): the relay is
                // the only way out of the outbox, so it must not end while confirms go on being accepted.
                failures++;
                // An outage: logged at WARNING when it starts or its cause changes, then quietly until it passes.
                boolean news = !String.valueOf(e).equals(lastFailure);
                lastFailure = String.valueOf(e);
                LOG.log(
                        news ? Level.WARNING : Level.FINE,
                        "relaying to the broker failed (attempt "
                                + failures + "); the outbox keeps every entry and the relay tries again in "
                                + pause(failures)
                                + ": " + e.getMessage(),
                        news ? (e instanceof RelayBatches.Failure ? e.getCause() : e) : null);
            }
        }
    }

    private static Duration pause(int failures) {
        long millis = 100L << Math.min(failures, 6);
        return Duration.ofMillis(Math.min(millis, MAX_PAUSE.toMillis()));
    }
}
