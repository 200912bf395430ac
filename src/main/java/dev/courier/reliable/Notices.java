package dev.courier.reliable;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;

/**
 * Notices to producers (a message or a delivery gone dead), one of the {@link Reconciler}'s jobs: due notices are
 * claimed and each is sent, holding no thread while the producer answers, until it answers 2xx; between attempts the
 * redelivery backoff. A producer without a notification URL has its notice recorded as done, with why.
 */
@ApplicationScoped
class Notices {

    @Resource
    private ManagedExecutorService executor;

    @Inject
    private ReconcileSteps steps;

    @Inject
    private Notifier notifier;

    /** Claims due notices and starts sending them; the calls outlive this method. */
    void run() {
        for (NoticeStore.ClaimedNotice notice : steps.claimNotices()) {
            CompletableFuture<String> told = notice.url() == null
                    ? CompletableFuture.completedFuture("the producer has no notification URL")
                    : notifier.tell(notice.url(), notice.secret(), notice.body());
            // The outcome is written on the managed executor (a transaction), once the answer is in.
            told.thenAcceptAsync(outcome -> steps.noticeOutcome(notice, outcome), executor);
        }
    }
}
