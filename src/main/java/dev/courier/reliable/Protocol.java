package dev.courier.reliable;

import dev.courier.platform.Columns;
import dev.courier.platform.DatabaseClock;
import dev.courier.platform.FaultInjection;
import dev.courier.platform.Json;
import dev.courier.platform.PageCursor;
import dev.courier.platform.ProblemException;
import dev.courier.tracing.MessageTraces;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * The protocol's steps, each in the caller's transaction: {@link ReliableMessages} exposes them to callers and
 * the reconciler runs them in transactions of its own. Its contracts are stated on {@link ReliableMessages}.
 */
@ApplicationScoped
class Protocol {

    static final String AFTER_PREPARE = "reliable.prepare.after-store";
    static final String AFTER_CONFIRM_UPDATE = "reliable.confirm.after-update";
    static final String AFTER_OUTBOX = "reliable.confirm.after-outbox";
    /** The confirm's transaction failing in its commit, after every statement succeeded. */
    static final String CONFIRM_AT_COMMIT = "reliable.confirm.at-commit";

    static final String BEFORE_COMPLETE = "reliable.consumed.before-complete";
    private static final String CONFIRMED = "confirmed by the producer";
    private static final String ALL_CONSUMED = "consumed by every subscriber";

    @Inject
    private MessageTraces traces;

    @Inject
    private ReliableMeters meters;

    @Inject
    private ReliableDatabase database;

    @Inject
    private MessageStore messages;

    @Inject
    private LedgerStore ledger;

    @Inject
    private HistoryStore history;

    @Inject
    private NoticeStore notices;

    @Inject
    private TopicStore topics;

    @Inject
    private ProducerStore producers;

    @Inject
    private OutboxStore outbox;

    @Inject
    private BatchStore batches;

    @Inject
    private RelaySignal relay;

    @Inject
    private LeftoverCopies leftovers;

    @Inject
    private ReliableSettings settings;

    @Inject
    private FaultInjection faults;

    @Inject
    private dev.courier.platform.AfterCommit afterCommit;

    @Inject
    private DatabaseClock clock;

    /**
     * Stores a {@code PENDING} message; nothing is delivered until it is confirmed. Its check-back is due
     * {@code checkBackAfter} (default {@code courier.reliable.check-back-timeout}) after now.
     *
     * @return the new message's id
     * @throws ProblemException 400 bad names, payload or headers; 404 unknown producer or a topic without subscribers;
     *         413 payload too large
     */
    String prepare(Prepare request) {
        Admitted admitted = admit(request);
        ProblemException refused;
        try {
            refused = store(List.of(admitted.row())).get(0);
        } catch (RuntimeException e) {
            admitted.send().end(e);
            throw e;
        }
        admitted.send().end(refused);
        if (refused != null) {
            throw refused;
        }
        return admitted.row().id();
    }

    /**
     * A prepare that passed the checks needing no database: the row to store, and its send span, which the caller
     * ends once the store answered (an error when it refused).
     */
    record Admitted(MessageStore.MessageRow row, MessageTraces.Passing send) {}

    /**
     * A prepare's checks that need no database, and the row it would store, its id and trace decided: on the
     * caller's thread, so that a bad request is refused before it waits for anyone, and the trace is the caller's.
     *
     * @throws ProblemException 400 bad names, payload, headers or check-back time; 413 payload too large
     */
    Admitted admit(Prepare request) {
        Names.check("topic", request.topic());
        Names.check("producer", request.producer());
        String payload = Content.payload(request.payload(), settings.maxPayloadBytes);
        String headers = Content.encodeHeaders(request.headers());
        Duration checkBack =
                request.checkBackAfter() == null ? settings.defaultCheckBackAfter : request.checkBackAfter();
        if (checkBack.isNegative() || checkBack.compareTo(Duration.ofDays(1)) > 0) {
            throw ProblemException.invalid("'checkBackSeconds' must be from 0 to 86400");
        }
        String id = UUID.randomUUID().toString();
        MessageTraces.Passing send = traces.startSend(MessageTraces.ARTEMIS, request.topic(), id, request.headers());
        if (send.headers() != request.headers()) {
            headers = Columns.json(send.headers()); // checked as the caller gave them: the trace header is Courier's
        }
        return new Admitted(
                new MessageStore.MessageRow(
                        id,
                        request.topic(),
                        request.producer(),
                        MessageState.PENDING,
                        payload,
                        headers,
                        checkBack.toMillis(),
                        request.deliverAt(),
                        0,
                        null, // the check-back is due from the moment it is stored
                        null,
                        0,
                        null,
                        null),
                send);
    }

    /**
     * Stores admitted prepares in the current transaction, the rows of all whose producer and topic hold in one
     * batch of inserts; each is answered on its own: null when stored, else the problem that refused it (404 an
     * unknown producer or a topic without subscribers), which wrote nothing.
     */
    List<ProblemException> store(List<MessageStore.MessageRow> admitted) {
        Instant now = clock.instant();
        List<ProblemException> refused = new ArrayList<>(admitted.size());
        List<MessageStore.MessageRow> rows = new ArrayList<>(admitted.size());
        List<HistoryStore.Moved> prepared = new ArrayList<>(admitted.size());
        try (Connection c = database.connection()) {
            Map<List<String>, Optional<Boolean>> known = new java.util.HashMap<>();
            for (MessageStore.MessageRow a : admitted) {
                Optional<Boolean> subscribed = known.get(List.of(a.producer(), a.topic()));
                if (subscribed == null) {
                    subscribed = producers.topicHasSubscribers(c, a.producer(), a.topic());
                    known.put(List.of(a.producer(), a.topic()), subscribed);
                }
                if (subscribed.isEmpty()) {
                    refused.add(new UnknownResourceException("producer", a.producer()));
                } else if (!subscribed.get()) {
                    refused.add(new UnknownResourceException("topic", a.topic()));
                } else {
                    refused.add(null);
                    rows.add(a.storedAt(now));
                    prepared.add(new HistoryStore.Moved(a.id(), null, null, MessageState.PENDING, "prepared"));
                }
            }
            if (!rows.isEmpty()) {
                messages.insertMessages(c, rows);
                history.record(c, prepared, now);
                faults.checkpoint(AFTER_PREPARE);
            }
            return refused;
        } catch (SQLException e) {
            throw new IllegalStateException("prepare failed", e);
        }
    }

    /**
     * Confirms a pending message: {@code SENT}, a ledger row per subscriber, and an outbox entry the {@link Relay}
     * publishes to every subscriber once the current transaction commits; no broker in this transaction. A final
     * payload or headers given here replace the prepared ones.
     *
     * @throws StateConflictException 409 when the message was cancelled, or was sent with another payload or
     *         headers than this confirm gives
     */
    Outcome confirm(String id, Optional<String> payload, Optional<Map<String, String>> headers) {
        return confirm(id, payload, headers, CONFIRMED);
    }

    private static Map<String, String> withoutTrace(Map<String, String> headers) {
        Map<String, String> rest = new java.util.HashMap<>(headers);
        rest.remove(MessageTraces.HEADER);
        return rest;
    }

    /** Final headers that leave out {@code traceparent} keep the prepared one: the trace goes on from the prepare. */
    private static String keepTrace(Map<String, String> given, String prepared, String encoded) {
        String trace = given.containsKey(MessageTraces.HEADER)
                ? null
                : Content.decodeHeaders(prepared).get(MessageTraces.HEADER);
        if (trace == null) {
            return encoded;
        }
        Map<String, String> kept = new java.util.HashMap<>(given);
        kept.put(MessageTraces.HEADER, trace);
        return Columns.json(kept); // the caller's headers were checked; the trace header is Courier's
    }

    Outcome confirm(String id, Optional<String> payload, Optional<Map<String, String>> headers, String reason) {
        String finalPayload =
                payload.map(p -> Content.payload(p, settings.maxPayloadBytes)).orElse(null);
        String finalHeaders = headers.map(Content::encodeHeaders).orElse(null);
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m = lock(c, id);
            if (m.state() == MessageState.SENT || m.state() == MessageState.COMPLETED) {
                if (finalPayload != null && !finalPayload.equals(m.payload())
                        || headers.isPresent()
                                && !withoutTrace(headers.get())
                                        .equals(withoutTrace(Content.decodeHeaders(m.headers())))) {
                    // The message went out as stored: a different final content would be silently dropped.
                    throw new StateConflictException(
                            "message",
                            id,
                            m.state(),
                            "confirmed with another payload or headers than it was sent with");
                }
                return new Outcome(id, m.state());
            }
            if (headers.isPresent()) {
                finalHeaders = keepTrace(headers.get(), m.headers(), finalHeaders);
            }
            require(m, MessageState.SENT, "confirmed");
            MessageStore.MessageRow sent = new MessageStore.MessageRow(
                    m.id(),
                    m.topic(),
                    m.producer(),
                    MessageState.SENT,
                    finalPayload == null ? m.payload() : finalPayload,
                    headers.isPresent() ? finalHeaders : m.headers(),
                    m.checkBackMs(),
                    m.deliverAt(),
                    m.checks(),
                    null,
                    m.lastError(),
                    m.version(),
                    m.createdAt(),
                    now);
            messages.moveMessage(c, m, MessageState.SENT, sent.payload(), sent.headers(), now, false);
            List<Subscriber> subscribers = topics.subscribers(c, m.topic());
            ledger.insertDeliveries(c, id, subscribers);
            List<HistoryStore.Moved> changes = new ArrayList<>(subscribers.size() + 1);
            changes.add(new HistoryStore.Moved(id, null, m.state(), MessageState.SENT, reason));
            for (Subscriber s : subscribers) {
                changes.add(new HistoryStore.Moved(id, s.name(), null, DeliveryState.DELIVERED, "published"));
            }
            history.record(c, changes, now);
            faults.checkpoint(AFTER_CONFIRM_UPDATE);
            outbox.insert(c, id, null, 1, now);
            relay.afterCommit();
            faults.checkpoint(AFTER_OUTBOX);
            failAtCommitIfArmed();
            return new Outcome(id, MessageState.SENT);
        } catch (SQLException e) {
            throw new IllegalStateException("confirm failed", e);
        }
    }

    /** The confirm's transaction fails in its commit when a test armed {@link #CONFIRM_AT_COMMIT}. */
    private void failAtCommitIfArmed() {
        if (faults.armed()) {
            afterCommit.beforeCommit(() -> faults.checkpoint(CONFIRM_AT_COMMIT));
        }
    }

    /** Cancels a pending (or dead) message. @throws StateConflictException 409 when it was sent */
    Outcome cancel(String id) {
        return cancel(id, "cancelled by the producer");
    }

    Outcome cancel(String id, String reason) {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m = lock(c, id);
            if (m.state() == MessageState.CANCELLED) {
                return new Outcome(id, m.state());
            }
            require(m, MessageState.CANCELLED, "cancelled");
            messages.moveMessage(c, m, MessageState.CANCELLED, m.payload(), m.headers(), now, true);
            history.record(c, id, null, m.state(), MessageState.CANCELLED, reason, now);
            return new Outcome(id, MessageState.CANCELLED);
        } catch (SQLException e) {
            throw new IllegalStateException("cancel failed", e);
        }
    }

    /**
     * Records that {@code subscriber} processed the message; when every subscriber has, the message is
     * {@code COMPLETED}. Idempotent. A late report for a dead delivery still counts.
     *
     * @throws UnknownResourceException 404 when the message has no delivery to that subscriber
     * @throws StateConflictException 409 when the message was never sent
     */
    Outcome consumed(String id, String subscriber) {
        Names.check("subscriber", subscriber);
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m = lock(c, id);
            LedgerStore.DeliveryRow d = delivery(c, m, subscriber, "reported consumed");
            if (d.state() == DeliveryState.CONSUMED) {
                return new Outcome(id, m.state());
            }
            move(c, d, DeliveryState.CONSUMED, d.attempts(), null, d.lastError(), now);
            history.record(c, id, subscriber, d.state(), DeliveryState.CONSUMED, "reported consumed", now);
            if (d.attempts() > 1) {
                leftovers.removeAfterCommit(m.topic(), subscriber, id); // a redelivered copy may still wait
            }
            meters.consumed(m.topic(), subscriber, sinceSent(m, now));
            faults.checkpoint(BEFORE_COMPLETE);
            if (ledger.unconsumed(c, id) == 0) {
                messages.moveMessage(c, m, MessageState.COMPLETED, m.payload(), m.headers(), now, true);
                history.record(c, id, null, m.state(), MessageState.COMPLETED, ALL_CONSUMED, now);
                return new Outcome(id, MessageState.COMPLETED);
            }
            return new Outcome(id, m.state());
        } catch (SQLException e) {
            throw new IllegalStateException("consumed failed", e);
        }
    }

    /** How long a sent message took to be consumed, as the consume-latency meter counts it. */
    private static Duration sinceSent(MessageStore.MessageRow m, Instant now) {
        // A sent message is last updated by its confirm; one held for later counts from its delivery time.
        Instant sent = m.deliverAt() != null && m.deliverAt().isAfter(m.updatedAt()) ? m.deliverAt() : m.updatedAt();
        return Duration.between(sent, now).isNegative() ? Duration.ZERO : Duration.between(sent, now);
    }

    /**
     * Records that {@code subscriber} failed to process the message: it is redelivered to that subscriber after
     * the redelivery backoff, and counts against its retry limit.
     *
     * @throws StateConflictException 409 when the delivery was already consumed or is dead
     */
    Outcome failed(String id, String subscriber, String reason) {
        Names.check("subscriber", subscriber);
        if (reason == null || reason.isBlank()) {
            throw ProblemException.invalid("'reason' is required");
        }
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m = lock(c, id);
            LedgerStore.DeliveryRow d = delivery(c, m, subscriber, "reported failed");
            if (d.state() != DeliveryState.DELIVERED) {
                throw new StateConflictException(
                        "the delivery to", subscriber + "' of message '" + id, d.state(), "reported failed");
            }
            move(
                    c,
                    d,
                    DeliveryState.DELIVERED,
                    d.attempts(),
                    now.plus(redeliveryBackoff(d.attempts())),
                    "failed: " + reason,
                    null);
            history.record(c, id, subscriber, d.state(), DeliveryState.DELIVERED, "failed: " + reason, now);
            return new Outcome(id, m.state());
        } catch (SQLException e) {
            throw new IllegalStateException("failed report failed", e);
        }
    }

    /**
     * Many confirms and cancels in the current transaction, in message order (two batches that share messages
     * take their locks in the same order); a refused one is answered with its problem and writes nothing. On
     * PostgreSQL the happy path goes together ({@link #confirmPendingTogether}), the rest one at a time.
     */
    List<Settle.Result> settle(List<Settle> settles) {
        Settle.Result[] results = new Settle.Result[settles.size()];
        try (Connection c = database.connection()) {
            if (ReliableDatabase.postgres(c)) {
                confirmPendingTogether(c, settles, results);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("settle failed", e);
        }
        for (int i : inOrder(settles, Comparator.comparing(Settle::messageId))) {
            Settle s = settles.get(i);
            if (results[i] != null) {
                continue;
            }
            try {
                results[i] = new Settle.Result(
                        s,
                        s.committed()
                                ? confirm(s.messageId(), Optional.empty(), Optional.empty())
                                : cancel(s.messageId()),
                        null);
            } catch (ProblemException e) {
                // Refused before anything was written (the checks come first), so the batch's transaction goes on.
                results[i] = new Settle.Result(s, null, e);
            }
        }
        return List.of(results);
    }

    /**
     * The happy path of a batch of settles in a handful of statements, whatever its size: every message the batch
     * confirms once and that is still {@code PENDING} goes to {@code SENT} together, with the writes a single
     * confirm makes (state, ledger, history, outbox). Locks every message of the batch first, in id order; the
     * other items are left for one-at-a-time.
     */
    private void confirmPendingTogether(Connection c, List<Settle> settles, Settle.Result[] results)
            throws SQLException {
        Map<String, Long> times =
                settles.stream().collect(Collectors.groupingBy(Settle::messageId, Collectors.counting()));
        Map<String, MessageStore.MessageRow> locked = batches.lock(c, new TreeSet<>(times.keySet()));
        Map<String, MessageStore.MessageRow> sending = new TreeMap<>();
        for (Settle s : settles) {
            MessageStore.MessageRow m = locked.get(s.messageId());
            if (s.committed() && times.get(s.messageId()) == 1L && m != null && m.state() == MessageState.PENDING) {
                sending.put(m.id(), m);
            }
        }
        if (sending.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        batches.send(c, sending.keySet(), now);
        Map<String, List<Subscriber>> byTopic = new java.util.HashMap<>(); // a batch is mostly of one topic
        for (MessageStore.MessageRow m : sending.values()) {
            if (!byTopic.containsKey(m.topic())) {
                byTopic.put(m.topic(), topics.subscribers(c, m.topic()));
            }
        }
        Map<String, List<Subscriber>> byMessage = new java.util.LinkedHashMap<>();
        List<HistoryStore.Moved> changes = new ArrayList<>();
        for (MessageStore.MessageRow m : sending.values()) {
            List<Subscriber> subscribers = byTopic.get(m.topic());
            byMessage.put(m.id(), subscribers);
            changes.add(new HistoryStore.Moved(m.id(), null, m.state(), MessageState.SENT, CONFIRMED));
            for (Subscriber s : subscribers) {
                changes.add(new HistoryStore.Moved(m.id(), s.name(), null, DeliveryState.DELIVERED, "published"));
            }
        }
        ledger.insertDeliveries(c, byMessage);
        history.record(c, changes, now);
        faults.checkpoint(AFTER_CONFIRM_UPDATE);
        outbox.insertPublishes(c, new ArrayList<>(sending.keySet()), now);
        relay.afterCommit();
        faults.checkpoint(AFTER_OUTBOX);
        failAtCommitIfArmed();
        for (int i = 0; i < results.length; i++) {
            Settle s = settles.get(i);
            if (s.committed() && sending.containsKey(s.messageId())) {
                results[i] = new Settle.Result(s, new Outcome(s.messageId(), MessageState.SENT), null);
            }
        }
    }

    /**
     * Many reports in the current transaction; a refused one is answered with its problem and writes nothing. On
     * PostgreSQL the happy path goes together ({@link #consumeDeliveredTogether}), the rest one at a time.
     */
    List<Report.Result> report(List<Report> reports) {
        Report.Result[] results = new Report.Result[reports.size()];
        try (Connection c = database.connection()) {
            if (ReliableDatabase.postgres(c)) {
                consumeDeliveredTogether(c, reports, results);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("report failed", e);
        }
        for (int i : inOrder(reports, Comparator.comparing(Report::messageId).thenComparing(Report::subscriber))) {
            Report r = reports.get(i);
            if (results[i] != null) {
                continue;
            }
            try {
                results[i] = new Report.Result(
                        r,
                        r.consumed()
                                ? consumed(r.messageId(), r.subscriber())
                                : failed(r.messageId(), r.subscriber(), r.reason()),
                        null);
            } catch (ProblemException e) {
                // Refused before anything was written (the checks come first), so the batch's transaction goes on.
                results[i] = new Report.Result(r, null, e);
            }
        }
        return List.of(results);
    }

    /**
     * The happy path of a batch of reports in a handful of statements: every first copy ({@code DELIVERED},
     * attempt 1) of a sent message that the batch reports consumed, once, goes to {@code CONSUMED} together, and
     * the messages no delivery waits on any more complete together, with the writes single reports make. Locks
     * every message of the batch first, in id order; the other items are left for one-at-a-time (a redelivered
     * copy, whose leftovers must go, among them).
     */
    private void consumeDeliveredTogether(Connection c, List<Report> reports, Report.Result[] results)
            throws SQLException {
        Map<String, Long> times =
                reports.stream().collect(Collectors.groupingBy(Report::messageId, Collectors.counting()));
        Map<String, MessageStore.MessageRow> locked = batches.lock(c, new TreeSet<>(times.keySet()));
        // Every delivery the batch may change is locked now, in key order, before any write: were the items left
        // for one-at-a-time to lock theirs later, the batch's order would not be the relay's, and they could deadlock.
        List<BatchStore.Key> touched = new ArrayList<>();
        List<BatchStore.Key> asked = new ArrayList<>();
        for (Report r : reports) {
            MessageStore.MessageRow m = locked.get(r.messageId());
            if (m == null
                    || !Names.valid(r.subscriber())
                    || m.state() != MessageState.SENT && m.state() != MessageState.COMPLETED) {
                continue; // refused one at a time, before it writes anything
            }
            BatchStore.Key key = new BatchStore.Key(r.messageId(), r.subscriber());
            touched.add(key);
            if (r.consumed() && times.get(r.messageId()) == 1L && m.state() == MessageState.SENT) {
                asked.add(key);
            }
        }
        if (touched.isEmpty()) {
            return;
        }
        Map<BatchStore.Key, LedgerStore.DeliveryRow> found = batches.lockDeliveries(c, touched);
        List<BatchStore.Key> consuming = asked.stream()
                .filter(k -> found.containsKey(k)
                        && found.get(k).state() == DeliveryState.DELIVERED
                        && found.get(k).attempts() == 1)
                .toList();
        if (consuming.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        batches.consume(c, consuming, now);
        List<HistoryStore.Moved> changes = new ArrayList<>();
        for (BatchStore.Key k : consuming) {
            changes.add(new HistoryStore.Moved(
                    k.messageId(),
                    k.subscriber(),
                    DeliveryState.DELIVERED,
                    DeliveryState.CONSUMED,
                    "reported consumed"));
            meters.consumed(
                    locked.get(k.messageId()).topic(), k.subscriber(), sinceSent(locked.get(k.messageId()), now));
        }
        faults.checkpoint(BEFORE_COMPLETE);
        Set<String> completed = batches.complete(
                c, consuming.stream().map(BatchStore.Key::messageId).toList(), now);
        for (String id : new TreeSet<>(completed)) {
            changes.add(new HistoryStore.Moved(id, null, MessageState.SENT, MessageState.COMPLETED, ALL_CONSUMED));
        }
        history.record(c, changes, now);
        Set<BatchStore.Key> done = Set.copyOf(consuming);
        for (int i = 0; i < results.length; i++) {
            Report r = reports.get(i);
            if (r.consumed() && done.contains(new BatchStore.Key(r.messageId(), r.subscriber()))) {
                results[i] = new Report.Result(
                        r,
                        new Outcome(
                                r.messageId(),
                                completed.contains(r.messageId()) ? MessageState.COMPLETED : MessageState.SENT),
                        null);
            }
        }
    }

    /** The items' indexes sorted by {@code by} (a stable sort: equal items keep the order given). */
    private static <T> List<Integer> inOrder(List<T> items, Comparator<T> by) {
        List<Integer> order = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing(items::get, by));
        return order;
    }

    /** Checks a dead pending message back again, with a fresh count of checks. */
    Outcome resume(String id) {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m = lock(c, id);
            if (m.state() != MessageState.DEAD) {
                throw new StateConflictException("message", id, m.state(), "resumed (only a dead message can)");
            }
            if (settings.pastHorizon(m.createdAt(), now)) {
                throw new StateConflictException("message", id, m.state(), "resumed: " + settings.pastHorizonReason());
            }
            messages.moveMessage(c, m, MessageState.PENDING, m.payload(), m.headers(), now, false);
            messages.resetChecks(c, id);
            history.record(c, id, null, m.state(), MessageState.PENDING, "resumed", now);
            return new Outcome(id, MessageState.PENDING);
        } catch (SQLException e) {
            throw new IllegalStateException("resume failed", e);
        }
    }

    /** Delivers a dead delivery again, to that subscriber only, with a fresh retry budget. */
    Outcome replay(String id, String subscriber) {
        Names.check("subscriber", subscriber);
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m = lock(c, id);
            LedgerStore.DeliveryRow d = delivery(c, m, subscriber, "replayed");
            if (d.state() != DeliveryState.DEAD) {
                throw new StateConflictException(
                        "the delivery to",
                        subscriber + "' of message '" + id,
                        d.state(),
                        "replayed (only a dead delivery can)");
            }
            if (settings.pastHorizon(m.createdAt(), now)) {
                throw new StateConflictException(
                        "the delivery to",
                        subscriber + "' of message '" + id,
                        d.state(),
                        "replayed: " + settings.pastHorizonReason());
            }
            moved(ledger.moveDelivery(c, d, DeliveryState.DELIVERED, 1, null, d.lastError(), null));
            history.record(c, id, subscriber, d.state(), DeliveryState.DELIVERED, "replayed", now);
            outbox.insert(c, id, subscriber, 1, now);
            relay.afterCommit();
            return new Outcome(id, m.state());
        } catch (SQLException e) {
            throw new IllegalStateException("replay failed", e);
        }
    }

    /** The message with its ledger and history. @throws UnknownResourceException 404 */
    ReliableMessage get(String id) {
        try (Connection c = database.connection()) {
            MessageStore.MessageRow m =
                    messages.message(c, id).orElseThrow(() -> new UnknownResourceException("message", id));
            return view(
                    m,
                    ledger.deliveries(c, id).stream()
                            .map(LedgerStore.DeliveryRow::view)
                            .toList(),
                    history.history(c, id));
        } catch (SQLException e) {
            throw new IllegalStateException("get failed", e);
        }
    }

    /**
     * A page of the messages matching the query, oldest first, each with its ledger (history left out): up to its
     * limit, fewer when their payloads reach {@code courier.reliable.max-page-bytes} (the page then has a next
     * cursor like a full one).
     */
    ReliableMessagePage query(MessageQuery query) {
        try (Connection c = database.connection()) {
            MessageStore.Page page = messages.query(c, query, query.limit() + 1, settings.maxPageBytes);
            List<MessageStore.MessageRow> rows = new ArrayList<>(page.rows());
            boolean more = rows.size() > query.limit() || page.cut();
            if (rows.size() > query.limit()) {
                rows.remove(query.limit());
            }
            List<ReliableMessage> found = new ArrayList<>(rows.size());
            for (MessageStore.MessageRow m : rows) {
                found.add(view(
                        m,
                        ledger.deliveries(c, m.id()).stream()
                                .map(LedgerStore.DeliveryRow::view)
                                .toList(),
                        List.of()));
            }
            MessageStore.MessageRow last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
            return new ReliableMessagePage(
                    found, more ? Optional.of(new PageCursor(last.createdAt(), last.id()).encode()) : Optional.empty());
        } catch (SQLException e) {
            throw new IllegalStateException("query failed", e);
        }
    }

    // --- used by the reconciler, in its own transactions

    /**
     * Redelivers a due delivery to its subscriber (an outbox entry for that subscriber alone; its report deadline
     * starts when the relay has put it on the broker), or moves it to dead past its retry limit. Takes the message's
     * lock first, as every report does, and acts only if the delivery is still as it was read: a report that came
     * meanwhile wins.
     */
    void redeliverOrBury(LedgerStore.DeliveryRow read) {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            ReliableDatabase.boundLockWaits(c);
            Optional<MessageStore.MessageRow> locked = messages.lock(c, read.messageId());
            Optional<LedgerStore.DeliveryRow> current =
                    locked.isEmpty() ? Optional.empty() : ledger.delivery(c, read.messageId(), read.subscriber());
            if (current.isEmpty() || current.get().version() != read.version()) {
                return; // purged, or reported (or redelivered by another server) since it was read
            }
            MessageStore.MessageRow m = locked.get();
            LedgerStore.DeliveryRow due = current.get();
            boolean pastHorizon = settings.pastHorizon(m.createdAt(), now);
            if (due.attempts() > due.retryLimit() || pastHorizon) {
                String error = pastHorizon
                        ? settings.pastHorizonReason()
                        : due.lastError() == null ? "no report within the delivery timeout" : due.lastError();
                if (ledger.moveDelivery(c, due, DeliveryState.DEAD, due.attempts(), null, error, null)) {
                    history.record(
                            c,
                            m.id(),
                            due.subscriber(),
                            due.state(),
                            DeliveryState.DEAD,
                            pastHorizon ? error : "retry limit " + due.retryLimit() + " reached: " + error,
                            now);
                    notice(c, m, due.subscriber(), "DELIVERY_DEAD", error, now);
                }
                return;
            }
            int attempt = due.attempts() + 1;
            if (ledger.moveDelivery(c, due, DeliveryState.DELIVERED, attempt, null, due.lastError(), null)) {
                history.record(
                        c,
                        m.id(),
                        due.subscriber(),
                        due.state(),
                        DeliveryState.DELIVERED,
                        "redelivered, attempt " + attempt + (due.lastError() == null ? ": no report in time" : ""),
                        now);
                outbox.insert(c, m.id(), due.subscriber(), attempt, now);
                relay.afterCommit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("redelivery failed", e);
        }
    }

    /**
     * A due delivery whose copy the subscriber's queue still holds, or may hold (a backlog, not a loss): its report
     * deadline moves one delivery timeout on from now, but never past the message's horizon, where the delivery is
     * buried and its copies removed; no copy is added and no attempt counted. Acts only on the delivery as read,
     * under the message's lock. @param why what the queue was seen to hold, for the history
     */
    void stillQueued(LedgerStore.DeliveryRow read, String why) {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            ReliableDatabase.boundLockWaits(c);
            Optional<MessageStore.MessageRow> locked = messages.lock(c, read.messageId());
            Optional<LedgerStore.DeliveryRow> current =
                    locked.isEmpty() ? Optional.empty() : ledger.delivery(c, read.messageId(), read.subscriber());
            if (current.isEmpty() || current.get().version() != read.version()) {
                return;
            }
            LedgerStore.DeliveryRow d = current.get();
            Instant deadline = now.plusMillis(d.timeoutMs());
            Instant horizon = settings.horizonOf(locked.get().createdAt());
            if (deadline.isAfter(horizon)) {
                deadline = horizon.plusMillis(1); // then past it: buried, its copies removed
            }
            ledger.moveDelivery(c, d, DeliveryState.DELIVERED, d.attempts(), deadline, d.lastError(), null);
            history.record(c, d.messageId(), d.subscriber(), d.state(), DeliveryState.DELIVERED, why, now);
        } catch (SQLException e) {
            throw new IllegalStateException("moving a delivery's deadline failed", e);
        }
    }

    /**
     * Records a check-back that settled nothing; past the maximum checks, or when {@code last} (the message is past
     * the horizon and gets no further check-back), the message is dead.
     */
    void checkUnsettled(MessageStore.ClaimedCheck check, String why, boolean last) {
        Instant now = clock.instant();
        int checks = check.checks() + 1;
        try (Connection c = database.connection()) {
            if (checks < settings.maxChecks && !last) {
                Instant next = now.plus(settings.checkBackoff()
                        .delayAfter(checks, ThreadLocalRandom.current().nextDouble()));
                messages.rescheduleCheck(c, check, next, true, why, now);
                return;
            }
            if (!messages.rescheduleCheck(c, check, null, true, why, now)) {
                return; // settled meanwhile
            }
            MessageStore.MessageRow m = messages.lock(c, check.id()).orElseThrow();
            messages.moveMessage(c, m, MessageState.DEAD, m.payload(), m.headers(), now, false);
            history.record(
                    c,
                    m.id(),
                    null,
                    MessageState.PENDING,
                    MessageState.DEAD,
                    // Not the error itself: it may name the producer's internals, and the history is every reader's;
                    // it stays in lastError, which admins and the producer's principals see.
                    last ? why : checks + " check-backs settled nothing",
                    now);
            notice(c, m, null, "MESSAGE_DEAD", why, now);
        } catch (SQLException e) {
            throw new IllegalStateException("recording a check failed", e);
        }
    }

    private void notice(
            Connection c, MessageStore.MessageRow m, String subscriber, String kind, String error, Instant now)
            throws SQLException {
        String id = UUID.randomUUID().toString();
        var body = Json.createObjectBuilder()
                .add("notificationId", id)
                .add("kind", kind)
                .add("messageId", m.id())
                .add("topic", m.topic())
                .add("producer", m.producer())
                .add("reason", Content.error(error))
                .add("at", now.toString());
        if (subscriber != null) {
            body.add("subscriber", subscriber);
        }
        notices.insertNotice(
                c, id, m.producer(), m.id(), subscriber, kind, body.build().toString(), now);
    }

    private Duration redeliveryBackoff(int attempts) {
        return settings.redeliveryBackoff()
                .delayAfter(attempts, ThreadLocalRandom.current().nextDouble());
    }

    /**
     * A report's move of a delivery, under its message's lock. Every writer of a delivery's state takes that lock
     * first; the redelivery round's claim ({@link LedgerStore#claimDue}, {@link LedgerStore#releaseClaims}) does
     * not: it moves only a due delivery's deadline and version. So a move that lost to a claim reads the row again
     * and moves it from there (the claimed copy's republish is then fenced out by the version). Seen in CI: a
     * consumed report answered 500 while the round claimed the same overdue delivery (BacklogIT, row 4).
     */
    private void move(
            Connection c,
            LedgerStore.DeliveryRow d,
            DeliveryState state,
            int attempts,
            Instant nextAttemptAt,
            String error,
            Instant consumedAt)
            throws SQLException {
        LedgerStore.DeliveryRow current = d;
        for (int tries = 0; tries < 3; tries++) {
            if (ledger.moveDelivery(c, current, state, attempts, nextAttemptAt, error, consumedAt)) {
                return;
            }
            current = ledger.delivery(c, d.messageId(), d.subscriber()).orElse(null);
            if (current == null || current.state() != d.state() || current.attempts() != d.attempts()) {
                break; // its state changed under the lock: a bug, not a claim
            }
        }
        moved(false);
    }

    /**
     * A move of a delivery under its message's lock that changed nothing: fail loudly rather than answer success.
     */
    private static void moved(boolean changed) {
        if (!changed) {
            throw new IllegalStateException("a delivery changed under its message's lock");
        }
    }

    private MessageStore.MessageRow lock(Connection c, String id) throws SQLException {
        return messages.lock(c, id).orElseThrow(() -> new UnknownResourceException("message", id));
    }

    private LedgerStore.DeliveryRow delivery(Connection c, MessageStore.MessageRow m, String subscriber, String action)
            throws SQLException {
        if (m.state() != MessageState.SENT && m.state() != MessageState.COMPLETED) {
            throw new StateConflictException("message", m.id(), m.state(), action + " (it was never sent)");
        }
        return ledger.delivery(c, m.id(), subscriber)
                .orElseThrow(() -> new UnknownResourceException("delivery", m.id() + "/" + subscriber));
    }

    private static void require(MessageStore.MessageRow m, MessageState next, String action) {
        if (!m.state().canMoveTo(next)) {
            throw new StateConflictException("message", m.id(), m.state(), action);
        }
    }

    private static ReliableMessage view(
            MessageStore.MessageRow m, List<DeliveryRecord> deliveries, List<Change> history) {
        return new ReliableMessage(
                m.id(),
                m.topic(),
                m.producer(),
                m.state(),
                m.payload(),
                Content.decodeHeaders(m.headers()),
                Duration.ofMillis(m.checkBackMs()),
                m.deliverAt(),
                m.checks(),
                m.nextCheckAt(),
                m.lastError(),
                m.createdAt(),
                m.updatedAt(),
                deliveries,
                history);
    }
}
