package dev.courier.reliable;

import dev.courier.platform.AfterCommit;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Logger;

/**
 * Removes the copies of a message left in a subscriber's queue once that subscriber's delivery is consumed: a
 * redelivery made while the first copy was being processed (taken from the queue, not yet reported) is of no use
 * any more. After the report commits, off the caller's thread; at worst a leftover stays, and the inbox makes it a
 * no-op.
 */
@ApplicationScoped
class LeftoverCopies {

    private static final Logger LOG = Logger.getLogger(LeftoverCopies.class.getName());

    @Inject
    private AfterCommit afterCommit;

    @Inject
    private Publisher publisher;

    @Resource
    private ManagedExecutorService executor;

    void removeAfterCommit(String topic, String subscriber, String messageId) {
        afterCommit.outcome(committed -> {
            if (!committed) {
                return;
            }
            try {
                executor.execute(() -> {
                    try {
                        publisher.removeCopies(topic, subscriber, messageId);
                    } catch (RuntimeException e) {
                        LOG.fine(() -> "leftover copies of " + messageId + " for " + subscriber + " stay: " + e);
                    }
                });
            } catch (RejectedExecutionException e) {
                LOG.fine(() -> "leftover copies of " + messageId + " for " + subscriber + " stay: " + e);
            }
        });
    }
}
