package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reliable message protocol: prepare, confirm, cancel; consumed and failed reports; resume and replay.
 *
 * <p>Transactional contract: every method joins the caller's JTA transaction or starts one ({@code REQUIRED}),
 * and everything it writes — the message row, the ledger, the history, and the outbox entry of each send it
 * decides — commits or rolls back with that transaction, on Courier's database alone: no broker and no two-phase
 * commit take part. So a confirm that commits will be published to every subscriber (by the {@link Relay}, at
 * least once, even if the broker is down at the time of the confirm), and a confirm that rolls back publishes
 * nothing and leaves the message {@code PENDING}. A refused call throws a {@link ProblemException} (400 bad input, 404 unknown, 409 illegal
 * transition, 413 payload too large) and marks the transaction for rollback: nothing is half written.
 *
 * <p>Confirm, cancel and consumed are idempotent: the same call again answers the same outcome and changes
 * nothing. Calls on one message are serialized by its row lock.
 */
@Stateless
// Reads too: a read that answers 404 without a global transaction would run in a local transaction
// containment, which logs WLTC0017E at ERROR (and an FFDC) when the problem marks it for rollback.
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class ReliableMessages {

    @Inject
    private Protocol protocol;

    /**
     * Stores a {@code PENDING} message; nothing is delivered until it is confirmed. Unless confirmed or cancelled
     * first, it is checked back {@code checkBackAfter} (default {@code courier.reliable.check-back-timeout}, 10 s)
     * after now.
     *
     * @return the new message's id
     * @throws ProblemException 400 bad names, payload or headers; 404 unknown producer or a topic without
     *         subscribers; 413 payload too large
     */
    public String prepare(Prepare request) {
        return protocol.prepare(request);
    }

    /**
     * Confirms a pending (or dead) message: {@code SENT}, a ledger row per current subscriber, and its publish to
     * every subscriber committed to the outbox (held by the broker until {@code deliverAt} when that is later). A
     * final payload or headers given here replace the prepared ones. Confirming a sent or completed message again
     * answers its state.
     *
     * @throws StateConflictException 409 when the message was cancelled, or was sent with another payload or
     *         headers than this call gives
     */
    public Outcome confirm(String id, Optional<String> payload, Optional<Map<String, String>> headers) {
        return protocol.confirm(id, payload, headers);
    }

    /**
     * Confirms and cancels many messages in one transaction: each is answered on its own (the outcome, or the
     * problem that refused it: 404, 409), and a refused one changes nothing, but does not stop the others.
     *
     * @return one result per settle, in the order given
     */
    public List<Settle.Result> settle(List<Settle> settles) {
        return protocol.settle(settles);
    }

    /** Cancels a pending (or dead) message; again answers CANCELLED. @throws StateConflictException 409 once sent */
    public Outcome cancel(String id) {
        return protocol.cancel(id);
    }

    /**
     * Records that {@code subscriber} processed the message; when every subscriber has, the message is
     * {@code COMPLETED}. Idempotent; a late report for a dead delivery still counts.
     *
     * @throws UnknownResourceException 404 when the message has no delivery to that subscriber
     * @throws StateConflictException 409 when the message was never sent
     */
    public Outcome consumed(String id, String subscriber) {
        return protocol.consumed(id, subscriber);
    }

    /**
     * Records that {@code subscriber} failed to process the message: it is redelivered to that subscriber alone
     * after the redelivery backoff, and counts against its retry limit.
     *
     * @throws StateConflictException 409 when that delivery was consumed or is dead
     */
    public Outcome failed(String id, String subscriber, String reason) {
        return protocol.failed(id, subscriber, reason);
    }

    /**
     * Records many reports in one transaction: each is answered on its own (the outcome, or the problem that
     * refused it: 400, 404, 409), and a refused report changes nothing, but does not stop the others. Reports are
     * applied in message order, so two batches that share messages take their locks in the same order.
     *
     * @return one result per report, in the order given
     */
    public List<Report.Result> report(List<Report> reports) {
        return protocol.report(reports);
    }

    /** Checks a dead pending message back again, with a fresh count. @throws StateConflictException 409 unless dead */
    public Outcome resume(String id) {
        return protocol.resume(id);
    }

    /**
     * Delivers a dead delivery again, to that subscriber only, with a fresh retry budget.
     *
     * @throws StateConflictException 409 unless that delivery is dead
     */
    public Outcome replay(String id, String subscriber) {
        return protocol.replay(id, subscriber);
    }

    /** The message with its ledger and history. @throws UnknownResourceException 404 */
    public ReliableMessage get(String id) {
        return protocol.get(id);
    }

    /**
     * A page of the messages matching the query, oldest first, each with its ledger (history left out): up to its
     * limit, fewer when their payloads reach {@code courier.reliable.max-page-bytes}.
     *
     * @throws dev.courier.platform.ProblemException 400 for a cursor no page gave
     */
    public ReliableMessagePage query(MessageQuery query) {
        return protocol.query(query);
    }
}
