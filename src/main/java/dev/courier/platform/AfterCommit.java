package dev.courier.platform;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Work that must happen only if the current transaction commits (waking receivers, counting), gathered per key:
 * the first call for a key in a transaction creates its state and registers one synchronization; later calls in
 * the same transaction get the same state to add to. Without a transaction the work runs at once.
 */
@ApplicationScoped
public class AfterCommit {

    @Resource
    private TransactionSynchronizationRegistry transactions;

    /**
     * Has {@code committed} learn how the current transaction ended: true once it committed, false once it rolled
     * back (or ended otherwise). Without a transaction, nothing is reported.
     */
    public void outcome(Consumer<Boolean> committed) {
        if (transactions.getTransactionKey() != null) {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // only the outcome matters
                }

                @Override
                public void afterCompletion(int status) {
                    committed.accept(status == Status.STATUS_COMMITTED);
                }
            });
        }
    }

    /**
     * Runs {@code check} as the current transaction commits, before its resources do: an exception from it rolls
     * the transaction back, as a failing commit would. Nothing without a transaction.
     */
    public void beforeCommit(Runnable check) {
        if (transactions.getTransactionKey() != null) {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    check.run();
                }

                @Override
                public void afterCompletion(int status) {
                    // only the check matters
                }
            });
        }
    }

    /** Whether the current transaction has work recorded under {@code key} (false without a transaction). */
    public boolean recorded(String key) {
        return transactions.getTransactionKey() != null && transactions.getResource(key) != null;
    }

    /**
     * Applies {@code update} to the state of {@code key} in this transaction (made by {@code create} on first
     * use), and has {@code committed} get that state once the transaction has committed.
     */
    public <T> void record(String key, Supplier<T> create, Consumer<T> update, Consumer<T> committed) {
        if (transactions.getTransactionKey() == null) {
            T now = create.get();
            update.accept(now);
            committed.accept(now);
            return;
        }
        @SuppressWarnings("unchecked")
        T state = (T) transactions.getResource(key);
        if (state == null) {
            T created = state = create.get();
            transactions.putResource(key, created);
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // only the outcome matters
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        committed.accept(created);
                    }
                }
            });
        }
        update.accept(state);
    }
}
