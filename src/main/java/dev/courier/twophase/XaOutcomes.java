package dev.courier.twophase;

import dev.courier.platform.AfterCommit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Counts how Courier's two-phase-commit transactions end, per server, at {@code /metrics}:
 * {@code courier_xa_transactions_total{use, outcome}}, {@code use} naming the caller ({@code probe}: the XA
 * probe; the lab's orders service, an application of its own, has its own transactions, not counted here), {@code outcome} {@code committed} or {@code rolled_back}.
 * Transactions left in doubt by a crash are resolved by Liberty's recovery on restart, outside any count here.
 */
@ApplicationScoped
public class XaOutcomes {

    @Inject
    private AfterCommit afterCommit;

    @Inject
    private MetricRegistry registry;

    /** Counts the current transaction's outcome once it ends. */
    public void count(String use) {
        afterCommit.outcome(committed -> registry.counter(
                        "courier_xa_transactions",
                        new Tag("use", use),
                        new Tag("outcome", committed ? "committed" : "rolled_back"))
                .inc());
    }
}
