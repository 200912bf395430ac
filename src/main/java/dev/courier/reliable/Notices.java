package dev.courier.reliable;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Notices to producers (a message or a delivery gone dead), one of the {@link Reconciler}'s jobs: due notices are
 * claimed and each is sent on the managed executor, until the producer answers 2xx; between attempts the
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
            executor.execute(() -> steps.noticeOutcome(
                    notice,
                    notice.url() == null
                            ? "the producer has no notification URL"
                            : notifier.tell(notice.url(), notice.secret(), notice.body())));
        }
    }
}
