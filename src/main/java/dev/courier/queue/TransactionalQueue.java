package dev.courier.queue;

import dev.courier.access.Action;
import dev.courier.access.Caller;
import dev.courier.platform.AfterCommit;
import dev.courier.platform.Columns;
import dev.courier.platform.ProblemException;
import dev.courier.platform.ProblemsRollBack;
import dev.courier.tracing.MessageTraces;
import dev.courier.tracing.MessageTraces.Passing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * Send, receive and acknowledge messages of a transactional queue. Unless a method says otherwise it joins the
 * caller's JTA transaction, or runs in its own when there is none ({@code REQUIRED}): what it writes commits or
 * rolls back with that transaction.
 *
 * <p>Guarantees:
 * <ul>
 * <li><b>Transactional send</b> — a message sent in a transaction exists only if the transaction commits.</li>
 * <li><b>At-least-once delivery</b> — a received message whose lease expires without ack is delivered again,
 * after the queue's backoff, until its attempts run out; then it is dead, never silently dropped.</li>
 * <li><b>Exclusive lease</b> — while a lease holds, no other receiver gets that message.</li>
 * <li><b>At-most-once ack, exactly-once processing</b> — {@link #ack} deletes exactly one row, fenced by the
 * lease token; if the row is gone or the token is stale it throws a {@link LeaseException}, which rolls back
 * the caller's whole transaction, so business writes made with the ack commit at most once.</li>
 * <li><b>Durability</b> — all state is in the database; a killed server loses nothing.</li>
 * </ul>
 */
// A CDI bean with JTA's interceptor rather than a stateless EJB: the same transaction attributes, without the
// EJB container's per-call work (about a tenth of the REST path's CPU in a profile, issue 11). A runtime
// exception marks the transaction rollback-only and reaches the caller unwrapped.
@ApplicationScoped
@ProblemsRollBack
@Transactional(value = Transactional.TxType.REQUIRED, dontRollbackOn = ProblemException.class)
public class TransactionalQueue {

    @Inject
    private MessageTraces traces;

    @Inject
    private QueueDatabases databases;

    @Inject
    private QueueStore queues;

    @Inject
    private Claims claims;

    @Inject
    private QueueSettings settings;

    @Inject
    private QueueSpecs specs;

    @Inject
    private Waiters waiters;

    @Inject
    private WaitingReceive waiting;

    @Inject
    private WakeUps wakeUps;

    @Inject
    private QueueMeters meters;

    @Inject
    private AfterCommit afterCommit;

    /**
     * Sends one message in the current transaction.
     *
     * @return the new message's id, or — when {@code options} carries an idempotency key already used on this
     *         queue within the window ({@code courier.queue.idempotency-window}) — the original's id with
     *         {@code duplicate = true}, and nothing is created
     * @throws QueueNotFoundException 404 for an unknown queue
     * @throws PayloadTooLargeException 413 over {@code courier.queue.max-payload-bytes}
     */
    public Sent send(QueueName queue, Payload payload, SendOptions options) {
        return sendBatch(queue, List.of(new Outgoing(payload, options))).get(0);
    }

    /**
     * Sends several messages to one queue in the current transaction: all of them or none. Results are in the
     * order of {@code messages}.
     */
    public List<Sent> sendBatch(QueueName queue, List<Outgoing> messages) {
        return sendBatch(queue, messages, Caller.TRUSTED);
    }

    /**
     * {@link #sendBatch(QueueName, List)} on behalf of {@code caller}.
     *
     * @throws dev.courier.access.NotGrantedException 403 when the queue's grants do not let {@code caller} send
     */
    public List<Sent> sendBatch(QueueName queue, List<Outgoing> messages, Caller caller) {
        if (messages.isEmpty()) {
            return List.of();
        }
        for (Outgoing message : messages) {
            if (message.payload().size() > settings.maxPayloadBytes) {
                throw new PayloadTooLargeException(message.payload().size(), settings.maxPayloadBytes);
            }
        }
        QueueDatabase database = databases.of(queue);
        try (Connection connection = database.connection()) {
            Instant now =
                    queues.requireQueue(connection, queue, caller, Action.SEND).now();
            List<QueueDialect.NewMessage> rows = new ArrayList<>(messages.size());
            List<Passing> spans = new ArrayList<>(messages.size());
            for (Outgoing message : messages) {
                SendOptions options = message.options();
                String id = UUID.randomUUID().toString();
                String headers = Headers.encode(options.headers()); // the limits hold for what the caller gave
                Passing span = traces.startSend(MessageTraces.COURIER, queue.value(), id, options.headers());
                spans.add(span);
                rows.add(new QueueDialect.NewMessage(
                        id,
                        options.deliverAt(now),
                        options.key(),
                        message.payload(),
                        span.headers() == options.headers() ? headers : Columns.json(span.headers())));
                if (options.key() != null) {
                    database.planOnIndexes(connection); // the key's check looks its message up by id
                }
            }
            List<Sent> results;
            try {
                results = database.dialect().send(connection, queue, rows, now, settings.idempotencyWindow);
            } catch (SQLException | RuntimeException e) {
                spans.forEach(span -> span.end(e));
                throw e;
            }
            List<String> sent = new ArrayList<>(results.size());
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).duplicate()) {
                    spans.get(i).endDuplicateOf(results.get(i).id());
                } else {
                    spans.get(i).end(null);
                    sent.add(results.get(i).id());
                }
            }
            if (!sent.isEmpty()) {
                databases.touched(sent, database);
                wakeReceiversOnCommit(queue);
                meters.onCommit(QueueMeters.Event.SENT, queue, sent.size());
            }
            return results;
        } catch (SQLException e) {
            if (isForeignKeyViolation(e)) { // dropped on another server since this one read it
                specs.forget(queue);
                databases.forget(queue);
                throw new QueueNotFoundException(queue);
            }
            throw new IllegalStateException("send to " + queue + " failed", e);
        }
    }

    /** {@link #receive(QueueName, int, Duration)} with the queue's default lease. */
    public List<Delivery> receive(QueueName queue, int max) {
        return receive(queue, max, null);
    }

    /**
     * Leases up to {@code max} deliverable messages (delivery time reached, not leased), in the current
     * transaction: if it rolls back, the leases are undone. Returns at once, possibly with none.
     *
     * @param lease how long the lease holds; {@code null} for the queue's default
     * @throws ProblemException 400 for {@code max} outside 1..{@code courier.queue.max-receive} or a bad lease
     */
    public List<Delivery> receive(QueueName queue, int max, Duration lease) {
        return receive(queue, max, lease, Caller.TRUSTED);
    }

    /**
     * {@link #receive(QueueName, int, Duration)} on behalf of {@code caller}.
     *
     * @throws dev.courier.access.NotGrantedException 403 when the queue's grants do not let {@code caller} consume
     */
    public List<Delivery> receive(QueueName queue, int max, Duration lease, Caller caller) {
        return claims.claim(queue, max, lease, caller);
    }

    /**
     * Waits up to {@code wait} for messages, then leases up to {@code max} of them, holding no thread while it
     * waits: the stage completes with the first non-empty claim, or empty when the wait is over. Not
     * transactional: each claim commits in its own transaction (a caller's transaction is suspended meanwhile),
     * so a caller's rollback does not return the messages — their leases expire instead. A send committed on any
     * server wakes the waiter at once; otherwise it polls with back-off up to
     * {@code courier.queue.poll-interval-max}. The first claim runs in the calling thread, so bad input and an
     * unknown queue throw here, not through the stage. A caller that gives up ends the wait by completing the
     * stage's future itself ({@code cancel}, {@code orTimeout}): nothing more is claimed for it, and a claim that
     * raced its end is given back at once without counting an attempt.
     *
     * @throws QueueLimitException 429 when {@code courier.queue.max-waiters} receivers already wait on the queue
     *         in this server (the limit is per server)
     */
    @Transactional(value = Transactional.TxType.NOT_SUPPORTED, dontRollbackOn = ProblemException.class)
    public CompletionStage<List<Delivery>> receiveAsync(QueueName queue, int max, Duration lease, Duration wait) {
        return receiveAsync(queue, max, lease, wait, Caller.TRUSTED);
    }

    /** {@link #receiveAsync(QueueName, int, Duration, Duration)} on behalf of {@code caller}, checked at once. */
    @Transactional(value = Transactional.TxType.NOT_SUPPORTED, dontRollbackOn = ProblemException.class)
    public CompletionStage<List<Delivery>> receiveAsync(
            QueueName queue, int max, Duration lease, Duration wait, Caller caller) {
        return waiting.start(queue, max, lease, wait, caller);
    }

    /**
     * {@link #receiveAsync} that blocks the calling thread until the wait is over; with no wait, a plain
     * {@link #receive(QueueName, int, Duration)} in its own transaction.
     *
     * @throws QueueLimitException 429 as for {@link #receiveAsync}
     */
    @Transactional(value = Transactional.TxType.NOT_SUPPORTED, dontRollbackOn = ProblemException.class)
    public List<Delivery> receive(QueueName queue, int max, Duration lease, Duration wait) {
        if (wait == null || wait.isZero()) {
            // a transaction of its own: this method runs without one
            return claims.claim(queue, max, lease, Caller.TRUSTED);
        }
        CompletableFuture<List<Delivery>> received = waiting.start(queue, max, lease, wait, Caller.TRUSTED);
        try {
            return received.get();
        } catch (InterruptedException e) {
            received.cancel(false); // the caller is gone: stop claiming for it
            Thread.currentThread().interrupt();
            return List.of();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        }
    }

    /**
     * Extends a lease to {@code extension} from now. Fenced by the token.
     *
     * @throws StaleLeaseException 409 when the token is no longer the message's lease
     * @throws MessageGoneException 410 when the message was acknowledged
     */
    public Lease renewLease(String token, Duration extension) {
        return renewLease(null, token, extension);
    }

    /**
     * {@link #renewLease(String, Duration)} through {@code queue} (the REST URL's): a message of another queue, or
     * an unknown queue, is a 404. Checked on the row the operation reads anyway: no extra query.
     */
    public Lease renewLease(QueueName queue, String token, Duration extension) {
        return renewLease(queue, token, extension, Caller.TRUSTED);
    }

    /**
     * {@link #renewLease(QueueName, String, Duration)} for {@code caller}, whose consume grant on the queue is
     * checked again (on the definition the renewal reads anyway): a receiver whose grant was revoked cannot keep a
     * lease alive. @throws dev.courier.access.NotGrantedException 403 when the grants leave the caller out now
     */
    public Lease renewLease(QueueName queue, String token, Duration extension, Caller caller) {
        QueueSpec.checkLease(extension);
        String id = LeaseToken.messageId(token);
        QueueDatabase database = home(queue, id);
        try (Connection connection = database.planned()) {
            QueueStore.QueueNow located =
                    queues.requireQueue(connection, queueOf(connection, queue, id, token), caller, Action.CONSUME);
            Instant expiry = located.now().plus(extension);
            Optional<LeaseFault.Lost> lost =
                    database.dialect().renew(connection, located.spec(), queue, id, token, expiry);
            if (lost.isPresent()) {
                throw failed(lost.get(), queue);
            }
            return new Lease(token, expiry);
        } catch (SQLException e) {
            throw new IllegalStateException("renew of " + id + " failed", e);
        }
    }

    /**
     * Gives a message back before its lease ends; this counts as a failed attempt. It is delivered again after
     * {@code delay} ({@code null}: the queue's backoff), or moves to dead if it has no attempts left.
     *
     * @param reason kept in the message's history (may be {@code null})
     * @throws StaleLeaseException 409 / {@link MessageGoneException} 410 as for {@link #ack}
     */
    public void release(String token, Duration delay, String reason) {
        release(null, token, delay, reason);
    }

    /** {@link #release(String, Duration, String)} through {@code queue}, as {@link #renewLease(QueueName, String, Duration)}. */
    public void release(QueueName queue, String token, Duration delay, String reason) {
        if (delay != null && delay.isNegative()) {
            throw ProblemException.invalid("delay must not be negative");
        }
        String id = LeaseToken.messageId(token);
        QueueDatabase database = home(queue, id);
        try (Connection connection = database.planned()) {
            QueueName of = queueOf(connection, queue, id, token);
            QueueStore.QueueNow located = queues.requireQueue(connection, of);
            QueueDialect.Released released = database.dialect()
                    .release(connection, located.spec(), queue, id, token, located.now(), delay, reason);
            if (released.lost() != null) {
                throw failed(released.lost(), queue);
            }
            if (released.dead()) {
                meters.onCommit(QueueMeters.Event.DEAD, of, 1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("release of " + id + " failed", e);
        }
    }

    /**
     * Acknowledges a message: deletes its row, in the current transaction, if {@code token} is its current lease.
     * Exactly one row is deleted or the call fails; a retried ack therefore fails.
     *
     * @throws MessageGoneException 410 when the message no longer exists (already acknowledged)
     * @throws StaleLeaseException 409 when another lease replaced this one, or the token is unknown
     *         (both roll back the caller's transaction)
     */
    public void ack(String token) {
        ack(null, token);
    }

    /**
     * {@link #ack(String)} through {@code queue}: the fenced delete also names the queue, so the common case is
     * one statement; only a failed ack reads more, to say why (404 another queue's message or no such queue,
     * 410 gone, 409 stale).
     */
    public void ack(QueueName queue, String token) {
        String id = LeaseToken.messageId(token);
        try (Connection connection = home(queue, id).planned()) {
            ackAll(connection, queue, List.of(token));
        } catch (SQLException e) {
            throw new IllegalStateException("ack of " + id + " failed", e);
        }
    }

    /**
     * Acknowledges several messages in the current transaction, in one round trip: each token must delete
     * exactly one row, or the call fails as {@link #ack} does and the whole transaction rolls back — none of
     * them is acknowledged then.
     */
    public void ackAll(List<String> tokens) {
        ackAll(null, tokens);
    }

    /**
     * {@link #ackAll(List)} for messages of {@code queue} only (a token of another queue's message fails the call
     * with 404), as the REST batch acknowledgement does.
     */
    public void ackAll(QueueName queue, List<String> tokens) {
        if (tokens.isEmpty()) {
            return;
        }
        try (Connection connection =
                home(queue, LeaseToken.messageId(tokens.get(0))).planned()) {
            ackAll(connection, queue, tokens);
        } catch (SQLException e) {
            throw new IllegalStateException("ack of " + tokens.size() + " messages failed", e);
        }
    }

    private void ackAll(Connection connection, QueueName queue, List<String> tokens) throws SQLException {
        if (tokens.isEmpty()) {
            return;
        }
        if (tokens.size() > settings.maxBatch) {
            throw ProblemException.invalid("at most " + settings.maxBatch + " tokens per acknowledgement");
        }
        List<String> ids = tokens.stream().map(LeaseToken::messageId).toList();
        if (ids.stream().distinct().count() != ids.size()) {
            throw ProblemException.invalid("a message is named twice in one acknowledgement");
        }
        Optional<LeaseFault.Lost> lost = databases.dialect().ack(connection, queue, ids, tokens);
        if (lost.isPresent()) {
            throw failed(lost.get(), queue); // all roll back
        }
        if (queue != null) {
            meters.onCommit(QueueMeters.Event.ACKED, queue, ids.size());
        }
    }

    /**
     * A worker's loop step in one transaction: acknowledges {@code tokens} (as {@link #ackAll(QueueName, List)})
     * and leases up to {@code max} more messages of the queue. If the acknowledgement fails, nothing is received.
     */
    public List<Delivery> ackAndReceive(QueueName queue, List<String> tokens, int max, Duration lease) {
        return ackAndReceive(queue, tokens, max, lease, Caller.TRUSTED);
    }

    /** {@link #ackAndReceive(QueueName, List, int, Duration)} on behalf of {@code caller}. */
    public List<Delivery> ackAndReceive(QueueName queue, List<String> tokens, int max, Duration lease, Caller caller) {
        try (Connection connection = databases.of(queue).planned()) { // one connection handle for both
            ackAll(connection, queue, tokens);
            return claims.claim(connection, queue, max, lease, caller);
        } catch (SQLException e) {
            throw new IllegalStateException("ack and receive on " + queue + " failed", e);
        }
    }

    /**
     * Acknowledges a message and sends a follow-up in the same transaction: the long-running-work pattern (ack
     * now, resend with a delivery time past the expected end of the work).
     */
    public Sent ackAndResend(String token, QueueName queue, Payload payload, SendOptions options) {
        ack(token);
        return send(queue, payload, options);
    }

    /**
     * The database of {@code queue}, or with none named (an operation by lease token alone) the one holding the
     * message {@code id}. A token-only acknowledgement of several messages works in the first one's database.
     */
    private QueueDatabase home(QueueName queue, String id) {
        return queue != null ? databases.of(queue) : databases.holdingMessage(id);
    }

    /**
     * The queue an operation by lease token works on: {@code queue} when the caller named it (the operation is
     * fenced by it), else the queue of the message under lease {@code token}.
     *
     * @throws MessageGoneException 410 / {@link StaleLeaseException} 409 as for {@link #ack(String)}
     */
    private QueueName queueOf(Connection connection, QueueName queue, String id, String token) throws SQLException {
        if (queue != null) {
            return queue;
        }
        StoredMessage message = StoredMessage.find(connection, id).orElseThrow(() -> new MessageGoneException(id));
        if (!token.equals(message.leaseToken())) {
            throw StaleLeaseException.of(id);
        }
        return message.queue();
    }

    /** The exception for a lost lease; a queue found missing is forgotten here too (dropped on another server). */
    private RuntimeException failed(LeaseFault.Lost lost, QueueName queue) {
        if (lost.fault() == LeaseFault.QUEUE_NOT_FOUND) {
            specs.forget(queue);
            databases.forget(queue);
        }
        return lost.exception(queue);
    }

    private void wakeReceiversOnCommit(QueueName queue) {
        afterCommit.record("courier.queue.wake." + queue.value(), () -> Boolean.TRUE, sent -> {}, sent -> {
            waiters.wake(queue);
            wakeUps.publish(queue);
        });
    }

    /** The message row's queue is gone (SQLState 23503 on both databases, perhaps behind a batch's chain). */
    private static boolean isForeignKeyViolation(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            if ("23503".equals(next.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
