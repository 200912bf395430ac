package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Prepares that arrive together are stored together: one transaction and one batch of inserts for every prepare
 * that came while the previous batch was on its way (a group commit). The REST API and {@link LocalCourierApi}
 * prepare through this; each prepare still commits before its caller gets its id, and is answered on its own.
 *
 * <p>How: a caller that finds no batch on its way stores its own prepare at once, on its own thread (one producer
 * waits for nobody). Callers that come meanwhile queue; when the batch ends, the first of them takes the turn and
 * stores every prepare that waits (up to {@code courier.reliable.batch-size}) in the next. So per transaction the
 * fixed costs (a JTA transaction, a connection, a commit) are paid once for the whole group, which is what a prepare
 * from sixteen producers at once spent most of its time on.
 *
 * <p>At {@code /metrics}: {@code courier_reliable_prepares_waiting}, prepares queued behind the batch on its way,
 * and {@code courier_reliable_prepare_batch_size}, how many prepares each transaction stored or refused.
 */
@ApplicationScoped
class Prepares {

    @Inject
    private Protocol protocol;

    @Inject
    private PrepareBatches batches;

    @Inject
    private ReliableSettings settings;

    @Inject
    private MetricRegistry registry;

    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    /** A batch is on its way. Guarded by {@link #queue}. */
    private boolean storing;

    @PostConstruct
    void meter() {
        registry.gauge("courier_reliable_prepares_waiting", this, Prepares::waiting);
    }

    private int waiting() {
        synchronized (queue) {
            return queue.size();
        }
    }

    /**
     * Stores a pending message, committed before this returns (in a transaction of its own, shared with the
     * prepares that came at the same time).
     *
     * @return the new message's id
     * @throws ProblemException as {@link ReliableMessages#prepare}
     */
    String prepare(Prepare request) {
        Protocol.Admitted admitted = protocol.admit(request);
        Waiting me = new Waiting(admitted.row());
        boolean lead;
        synchronized (queue) {
            lead = !storing;
            if (lead) {
                storing = true;
            } else {
                queue.add(me);
            }
        }
        if (!lead) {
            lead = me.awaitTurnOrAnswer();
        }
        if (lead) {
            storeFrom(me);
        }
        String id;
        try {
            id = me.answer();
        } catch (RuntimeException e) {
            admitted.send().end(e); // refused, or the batch failed: no message was stored
            throw e;
        }
        admitted.send().end(null);
        return id;
    }

    /** Stores {@code first} and whatever waits, then hands the turn to the next waiting caller, if any. */
    private void storeFrom(Waiting first) {
        List<Waiting> batch = new ArrayList<>();
        batch.add(first);
        synchronized (queue) {
            while (batch.size() < settings.batchSize && !queue.isEmpty()) {
                batch.add(queue.poll());
            }
        }
        try {
            List<MessageStore.MessageRow> rows = new ArrayList<>(batch.size());
            batch.forEach(w -> rows.add(w.row));
            registry.histogram("courier_reliable_prepare_batch_size").update(batch.size());
            List<ProblemException> refused = batches.store(rows);
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).answer(refused.get(i));
            }
        } catch (RuntimeException e) {
            batch.forEach(w -> w.fail(e)); // nothing of the batch was stored
        } finally {
            Waiting next;
            synchronized (queue) {
                next = queue.poll();
                storing = next != null;
            }
            if (next != null) {
                next.takeTurn();
            }
        }
    }

    /** One caller's prepare, waiting for its turn to store a batch or for its answer. */
    private static final class Waiting {
        final MessageStore.MessageRow row;
        private boolean turn;
        private boolean answered;
        private ProblemException refused;
        private RuntimeException failure;

        Waiting(MessageStore.MessageRow row) {
            this.row = row;
        }

        /** @return true when it is this caller's turn to store, false when its prepare was answered */
        synchronized boolean awaitTurnOrAnswer() {
            boolean interrupted = false;
            while (!turn && !answered) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the batch decides this prepare's fate: wait for its answer
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return !answered;
        }

        synchronized void takeTurn() {
            turn = true;
            notifyAll();
        }

        synchronized void answer(ProblemException refused) {
            this.refused = refused;
            answered = true;
            notifyAll();
        }

        synchronized void fail(RuntimeException failure) {
            this.failure = failure;
            answered = true;
            notifyAll();
        }

        synchronized String answer() {
            if (failure != null) {
                throw failure;
            }
            if (refused != null) {
                throw refused;
            }
            return row.id();
        }
    }
}
