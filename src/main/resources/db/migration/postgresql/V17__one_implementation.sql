-- One implementation of the queue's state changes on PostgreSQL (issue 49): the statements that lease, acknowledge,
-- renew and release messages live here once, in "core" functions that both the SQL API and Courier's server call.
-- The SQL API's functions (courier.receive, ack, ack_all, renew, release) read the queue's row and the limits, check
-- their input, take the time from the database's clock and call the core; the server checks its input in Java,
-- takes the queue's settings from its copy (QueueSpecs) and the time from its reading of the same clock
-- (DatabaseClock, which tests move), and calls the same core (PostgresQueueDialect). So SQL, the library (which
-- calls the SQL API) and REST cannot drift: QueueSqlApiIT runs one scenario through the three and compares rows.
--
-- The core functions are SECURITY INVOKER and take the time as a parameter: they run with their caller's rights,
-- so a role granted EXECUTE on the schema gets nothing from them that it does not already have on Courier's
-- tables (Courier's own role has; an application's role, which has EXECUTE only, does not). EXECUTE is revoked from
-- PUBLIC as for the rest of the schema. They carry no SET clauses: the SQL API's functions set the search path and
-- the plan for their call, and the server plans its transaction on indexes (QueueSql.PLAN_ON_INDEXES_POSTGRESQL).

-- The redelivery delay before jitter, in seconds, after delivery "attempt" fails: min(max, initial × multiplier ^
-- (attempt − 1)), and none after the last attempt (the message is dead then). Java's Backoff.ceiling, for Derby.
CREATE FUNCTION courier.redelivery_ceiling(attempt int, max_attempts int, initial_ms bigint, multiplier float8,
                                           max_ms bigint)
    RETURNS float8
    LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN $1 >= $2 THEN 0
                ELSE least($3 * power($4, greatest($1 - 1, 0)), $5) / 1000.0 END
$$;

-- Why a lease token's message matched no row, when it was named through queue (null: any queue): the queue does
-- not exist (QUEUE_NOT_FOUND), the message is gone, acknowledged or never there (GONE), it is another queue's
-- (ELSEWHERE), or another lease (or none) replaced this one (STALE). In that order, as REST answers 404, 410, 404,
-- 409.
CREATE FUNCTION courier.lease_fault(queue text, message_id text)
    RETURNS text
    LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
    owner text;
BEGIN
    IF lease_fault.queue IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM courier_queue q WHERE q.name = lease_fault.queue) THEN
        RETURN 'QUEUE_NOT_FOUND';
    END IF;
    SELECT m.queue INTO owner FROM courier_message m WHERE m.id = lease_fault.message_id;
    IF NOT FOUND THEN
        RETURN 'GONE';
    END IF;
    IF lease_fault.queue IS NOT NULL AND owner <> lease_fault.queue THEN
        RETURN 'ELSEWHERE';
    END IF;
    RETURN 'STALE';
END
$$;

-- Raises a lease fault as the SQL API's error: CQ404, CQ410 or CQ409; the message names the message.
CREATE FUNCTION courier.raise_lease_fault(fault text, queue text, message_id text)
    RETURNS void
    LANGUAGE plpgsql
AS $$
BEGIN
    CASE fault
        WHEN 'QUEUE_NOT_FOUND' THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ404', MESSAGE = format('there is no queue %L', queue);
        WHEN 'ELSEWHERE' THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ404',
                MESSAGE = format('there is no message %s in queue %L', message_id, queue);
        WHEN 'GONE' THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ410', MESSAGE = format('message %s is gone', message_id);
        ELSE
            RAISE EXCEPTION USING ERRCODE = 'CQ409',
                MESSAGE = format('the lease of message %s is no longer this token''s', message_id);
    END CASE;
END
$$;

-- Leases up to max deliverable messages of queue, fewer when their payloads reach max_bytes (a message is leased
-- only while the payloads before it stay under the budget, so the first always is), skipping rows other receivers
-- hold. Each lease moves the message's delivery time to the lease's expiry plus the backoff for this attempt,
-- jittered into [50 %, 100 %]: a lease that runs out delivers the message again by itself. A message leased again
-- after its lease ran out gets the history line of the expired attempt; expired says which did.
CREATE FUNCTION courier.core_claim(queue text, max int, max_bytes bigint, now_ timestamptz, expiry timestamptz,
                                   max_attempts int, backoff_initial_ms bigint, backoff_multiplier float8,
                                   backoff_max_ms bigint, nonce text)
    RETURNS TABLE (id text, attempt int, lease_token text, lease_expires_at timestamptz, payload_type text,
                   payload bytea, headers text, created_at timestamptz, expired boolean)
    LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH picked AS (
        SELECT m.id, m.deliver_at, m.lease_expires_at AS previous_expiry, octet_length(m.payload) AS size
        FROM courier_message m
        WHERE m.queue = core_claim.queue AND m.state = 'READY' AND m.deliver_at <= core_claim.now_
          AND m.attempt < core_claim.max_attempts
        ORDER BY m.deliver_at
        LIMIT core_claim.max
        FOR UPDATE SKIP LOCKED)
    UPDATE courier_message m
    SET attempt = m.attempt + 1,
        lease_token = m.id || '.' || core_claim.nonce,
        lease_expires_at = core_claim.expiry,
        deliver_at = core_claim.expiry + make_interval(secs => courier.redelivery_ceiling(
            m.attempt + 1, core_claim.max_attempts, core_claim.backoff_initial_ms, core_claim.backoff_multiplier,
            core_claim.backoff_max_ms) * (0.5 + 0.5 * random())),
        -- The right-hand side reads the row as it was: a lease still set is the one that expired.
        history = CASE
            WHEN m.lease_expires_at IS NULL THEN m.history
            ELSE (SELECT CASE WHEN length(coalesce(m.history, '')) + length(line) > 32000 THEN m.history
                              ELSE coalesce(m.history, '') || line END
                  FROM (SELECT json_build_object(
                                   'attempt', m.attempt,
                                   'failedAt', to_char(m.lease_expires_at AT TIME ZONE 'UTC',
                                                       'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                   'kind', 'EXPIRED', 'reason', 'lease expired')::text || E'\n' AS line) l)
            END,
        version = m.version + 1
    -- The ids as one array, computed once, find the rows by the primary key: the planner, which thinks a queue's
    -- table nearly empty, otherwise joins the picked rows to a scan of the whole primary key (seen: 44 ms and
    -- 3 855 buffers for 100 messages). The join to the picked rows then only brings their previous expiry along.
    FROM picked p
    WHERE p.id = m.id AND m.id = ANY (ARRAY(
        SELECT b.id
        FROM (SELECT p.id, SUM(p.size) OVER (ORDER BY p.deliver_at, p.id ROWS UNBOUNDED PRECEDING) - p.size AS before
              FROM picked p) b
        WHERE b.before < core_claim.max_bytes))
    RETURNING m.id::text, m.attempt, m.lease_token::text, m.lease_expires_at, m.payload_type::text, m.payload,
              m.headers::text, m.created_at, p.previous_expiry IS NOT NULL;
END
$$;

-- Acknowledges: deletes each message whose current lease is its token (ids[i] is the message lease_tokens[i]
-- names), of queue only unless it is null. Both null when every token deleted its message; otherwise, for the first
-- that did not, the message and its lease fault, and the caller fails (the deletes roll back with it).
CREATE FUNCTION courier.core_ack(queue text, ids text[], lease_tokens text[], OUT message_id text, OUT fault text)
    LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    deleted text[];
    i       int;
BEGIN
    IF cardinality(core_ack.ids) = 1 THEN -- the common case, without the arrays' work
        DELETE FROM courier_message m
        WHERE m.id = core_ack.ids[1] AND m.lease_token = core_ack.lease_tokens[1]
          AND (core_ack.queue IS NULL OR m.queue = core_ack.queue);
        IF NOT FOUND THEN
            message_id := core_ack.ids[1];
            fault := courier.lease_fault(core_ack.queue, core_ack.ids[1]);
        END IF;
        RETURN;
    END IF;
    -- A token names its message, so matching any of the tokens is matching each pair; the ids let the primary
    -- key find the rows.
    WITH d AS (
        DELETE FROM courier_message m
        WHERE m.id = ANY (core_ack.ids) AND m.lease_token = ANY (core_ack.lease_tokens)
          AND (core_ack.queue IS NULL OR m.queue = core_ack.queue)
        RETURNING m.id)
    SELECT array_agg(d.id) INTO deleted FROM d;
    IF coalesce(cardinality(deleted), 0) = cardinality(core_ack.ids) THEN
        RETURN;
    END IF;
    FOR i IN 1..cardinality(core_ack.ids) LOOP
        IF deleted IS NULL OR NOT core_ack.ids[i] = ANY (deleted) THEN
            message_id := core_ack.ids[i];
            fault := courier.lease_fault(core_ack.queue, core_ack.ids[i]);
            RETURN;
        END IF;
    END LOOP;
END
$$;

-- Extends a lease to expiry, fenced by the token (and by queue unless null); the redelivery time moves with it,
-- plus the queue's backoff for the current attempt. Null when done, else the lease fault.
CREATE FUNCTION courier.core_renew(queue text, message_id text, lease_token text, expiry timestamptz)
    RETURNS text
    LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
    UPDATE courier_message m
    SET lease_expires_at = core_renew.expiry,
        deliver_at = core_renew.expiry + make_interval(secs => courier.redelivery_ceiling(
            m.attempt, q.max_attempts, q.backoff_initial_ms, q.backoff_multiplier, q.backoff_max_ms)
            * (0.5 + 0.5 * random())),
        version = m.version + 1
    FROM courier_queue q
    WHERE q.name = m.queue AND m.id = core_renew.message_id AND m.lease_token = core_renew.lease_token
      AND m.state = 'READY' AND (core_renew.queue IS NULL OR m.queue = core_renew.queue);
    IF FOUND THEN
        RETURN NULL;
    END IF;
    RETURN courier.lease_fault(core_renew.queue, core_renew.message_id);
END
$$;

-- Gives a message back before its lease ends, fenced by the token (and by queue unless null), as a failed attempt
-- kept in its history with the reason (blank: "released"; past 1000 characters, cut): delivered again after delay
-- (null: the queue's backoff), or dead if it has no attempts left. The lease fault (null when done), and whether
-- the message is dead now.
CREATE FUNCTION courier.core_release(queue text, message_id text, lease_token text, now_ timestamptz,
                                     delay interval, reason text, OUT fault text, OUT dead boolean)
    LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    why text := CASE WHEN core_release.reason IS NULL OR core_release.reason ~ '^\s*$' THEN 'released'
                     WHEN length(core_release.reason) > 1000 THEN left(core_release.reason, 999) || '…'
                     ELSE core_release.reason END;
    now_dead boolean;
BEGIN
    WITH line AS (
        SELECT m.id,
               json_build_object('attempt', m.attempt,
                                 'failedAt', to_char(core_release.now_ AT TIME ZONE 'UTC',
                                                     'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                 'kind', 'RELEASED', 'reason', why)::text || E'\n' AS text
        FROM courier_message m WHERE m.id = core_release.message_id)
    UPDATE courier_message m
    SET state = CASE WHEN m.attempt >= q.max_attempts THEN 'DEAD' ELSE 'READY' END,
        deliver_at = core_release.now_ + coalesce(core_release.delay, make_interval(secs => courier.redelivery_ceiling(
            m.attempt, q.max_attempts, q.backoff_initial_ms, q.backoff_multiplier, q.backoff_max_ms)
            * (0.5 + 0.5 * random()))),
        lease_token = NULL,
        lease_expires_at = NULL,
        last_error = why,
        dead_at = CASE WHEN m.attempt >= q.max_attempts THEN core_release.now_ END,
        history = CASE WHEN length(coalesce(m.history, '')) + length(line.text) > 32000 THEN m.history
                       ELSE coalesce(m.history, '') || line.text END,
        version = m.version + 1
    FROM courier_queue q, line
    WHERE q.name = m.queue AND line.id = m.id AND m.id = core_release.message_id
      AND m.lease_token = core_release.lease_token AND m.state = 'READY'
      AND (core_release.queue IS NULL OR m.queue = core_release.queue)
    RETURNING m.state = 'DEAD' INTO now_dead;
    IF FOUND THEN
        dead := now_dead;
    ELSE
        fault := courier.lease_fault(core_release.queue, core_release.message_id);
        dead := false;
    END IF;
END
$$;

-- Enqueues messages to one queue: all of them or none (a queue dropped meanwhile fails the insert with 23503).
-- ids are the new messages' (the caller makes them: the server names each in its trace before the insert), due
-- their delivery times, keys, payload types, payloads and headers (text, as stored) one entry per message, keys and
-- headers null where none. A key already bound on the queue within its window (a binding is released when its
-- window is over and its message gone) sends nothing for that message: it is the one kind of row returned, its
-- ordinal (from 1) with the original's id and delivery time. Every other message is written as given.
CREATE FUNCTION courier.core_send(queue text, ids text[], due timestamptz[], keys text[], payload_types text[],
                                  payloads bytea[], headers text[], now_ timestamptz, key_window interval)
    RETURNS TABLE (ordinal int, id text, deliver_at timestamptz)
    LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    i     int;
    bound text;
BEGIN
    IF core_send.keys IS NULL OR cardinality(array_remove(core_send.keys, NULL)) = 0 THEN
        INSERT INTO courier_message (id, queue, state, deliver_at, attempt, version, idempotency_key, payload_type,
                                     payload, headers, created_at)
        SELECT t.i, core_send.queue, 'READY', t.d, 0, 0, NULL, t.pt, t.p, t.h, core_send.now_
        FROM unnest(core_send.ids, core_send.due, core_send.payload_types, core_send.payloads, core_send.headers)
            AS t (i, d, pt, p, h);
        RETURN;
    END IF;
    FOR i IN 1..cardinality(core_send.ids) LOOP
        IF core_send.keys[i] IS NOT NULL THEN
            bound := NULL;
            INSERT INTO courier_idempotency_key AS k (queue, idem_key, message_id, deliver_at, expires_at)
            VALUES (core_send.queue, core_send.keys[i], core_send.ids[i], core_send.due[i],
                    core_send.now_ + core_send.key_window)
            ON CONFLICT (queue, idem_key) DO UPDATE
                SET message_id = EXCLUDED.message_id, deliver_at = EXCLUDED.deliver_at, expires_at = EXCLUDED.expires_at
                WHERE k.expires_at <= core_send.now_
                  AND NOT EXISTS (SELECT 1 FROM courier_message m WHERE m.id = k.message_id)
            RETURNING k.message_id INTO bound;
            IF bound IS NULL THEN
                SELECT k.message_id, k.deliver_at INTO id, deliver_at FROM courier_idempotency_key k
                WHERE k.queue = core_send.queue AND k.idem_key = core_send.keys[i];
                ordinal := i;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;
        INSERT INTO courier_message (id, queue, state, deliver_at, attempt, version, idempotency_key, payload_type,
                                     payload, headers, created_at)
        VALUES (core_send.ids[i], core_send.queue, 'READY', core_send.due[i], 0, 0, core_send.keys[i],
                core_send.payload_types[i], core_send.payloads[i], core_send.headers[i], core_send.now_);
    END LOOP;
END
$$;

-- The SQL API's functions on the core: the same signatures, results and errors as V14 and V16.

CREATE OR REPLACE FUNCTION courier.send_batch(queue text, payloads jsonb[], delay interval DEFAULT NULL,
                                              keys text[] DEFAULT NULL, headers jsonb[] DEFAULT NULL)
    RETURNS TABLE (id uuid, duplicate boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    q     record;
    now_  timestamptz := clock_timestamp();
    n     int := coalesce(cardinality(payloads), 0);
    i     int;
    ids   text[] := '{}';
    bytes bytea[] := '{}';
    texts text[] := '{}';
    taken boolean[] := '{}';
    dup   record;
BEGIN
    IF n = 0 THEN
        RETURN;
    END IF;
    SELECT cq.name, l.max_payload_bytes, l.idempotency_window_ms, l.max_batch INTO q
    FROM courier_queue cq CROSS JOIN courier_queue_limits l
    WHERE cq.name = send_batch.queue
    FOR KEY SHARE OF cq; -- the queue cannot be dropped under this transaction
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ404', MESSAGE = format('there is no queue %L', send_batch.queue);
    END IF;
    IF n > q.max_batch THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = format('at most %s messages per batch', q.max_batch);
    END IF;
    IF delay < interval '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'delay must not be negative';
    END IF;
    IF keys IS NOT NULL AND cardinality(keys) <> n OR headers IS NOT NULL AND cardinality(headers) <> n THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'keys and headers, when given, need one entry per payload';
    END IF;
    FOR i IN 1..n LOOP
        IF payloads[i] IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = format('payload %s is null', i);
        END IF;
        IF octet_length(payloads[i]::text) > q.max_payload_bytes THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ413',
                MESSAGE = format('payload %s takes %s bytes; the limit is %s', i, octet_length(payloads[i]::text),
                                 q.max_payload_bytes);
        END IF;
        IF headers IS NOT NULL AND headers[i] IS NOT NULL THEN
            IF jsonb_typeof(headers[i]) <> 'object'
                    OR EXISTS (SELECT 1 FROM jsonb_each(headers[i]) h WHERE jsonb_typeof(h.value) <> 'string') THEN
                RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'headers must be a JSON object of strings';
            END IF;
            IF EXISTS (SELECT 1 FROM jsonb_object_keys(headers[i]) k WHERE k ~ '^\s*$') THEN
                RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'header names must not be blank';
            END IF;
            IF length(headers[i]::text) > 8000 THEN
                RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'headers take more than 8000 characters as JSON';
            END IF;
        END IF;
        IF keys IS NOT NULL AND keys[i] IS NOT NULL AND (keys[i] ~ '^\s*$' OR length(keys[i]) > 200) THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'key must be 1 to 200 characters';
        END IF;
        ids[i] := gen_random_uuid()::text;
        bytes[i] := convert_to(payloads[i]::text, 'UTF8');
        texts[i] := CASE WHEN headers IS NULL OR headers[i] IS NULL OR headers[i] = '{}'::jsonb THEN NULL
                         ELSE headers[i]::text END;
    END LOOP;
    FOR dup IN SELECT * FROM courier.core_send(q.name, ids, array_fill(now_ + coalesce(delay, interval '0'), ARRAY[n]),
                                               keys, array_fill('JSON'::text, ARRAY[n]), bytes, texts, now_,
                                               make_interval(secs => q.idempotency_window_ms / 1000.0)) LOOP
        ids[dup.ordinal] := dup.id;
        taken[dup.ordinal] := true;
    END LOOP;
    FOR i IN 1..n LOOP
        id := ids[i]::uuid;
        duplicate := coalesce(taken[i], false);
        RETURN NEXT;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION courier.receive(queue text, max int DEFAULT 1, lease interval DEFAULT NULL)
    RETURNS TABLE (id uuid, lease_token text, attempt int, payload jsonb, headers jsonb,
                   lease_expires_at timestamptz, created_at timestamptz, payload_type text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    q    record;
    now_ timestamptz := clock_timestamp();
BEGIN
    SELECT cq.name, cq.lease_ms, cq.max_attempts, cq.backoff_initial_ms, cq.backoff_multiplier, cq.backoff_max_ms,
           l.max_receive, l.max_page_bytes INTO q
    FROM courier_queue cq CROSS JOIN courier_queue_limits l
    WHERE cq.name = receive.queue;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ404', MESSAGE = format('there is no queue %L', receive.queue);
    END IF;
    IF max IS NULL OR max < 1 OR max > q.max_receive THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = format('max must be between 1 and %s', q.max_receive);
    END IF;
    IF lease <= interval '0' OR lease > interval '12 hours' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'a lease must be longer than 0 and at most 12 hours';
    END IF;
    RETURN QUERY
    SELECT c.id::uuid, c.lease_token, c.attempt,
           CASE WHEN c.payload_type = 'JSON' THEN convert_from(c.payload, 'UTF8')::jsonb
                ELSE to_jsonb(translate(encode(c.payload, 'base64'), E'\n', '')) END,
           c.headers::jsonb, c.lease_expires_at, c.created_at, c.payload_type
    FROM courier.core_claim(q.name, max, q.max_page_bytes, now_,
                            now_ + coalesce(lease, make_interval(secs => q.lease_ms / 1000.0)), q.max_attempts,
                            q.backoff_initial_ms, q.backoff_multiplier, q.backoff_max_ms,
                            replace(gen_random_uuid()::text, '-', '')) c;
END
$$;

CREATE OR REPLACE FUNCTION courier.ack(lease_token text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    mid  text := courier.message_of(ack.lease_token);
    lost record;
BEGIN
    SELECT * INTO lost FROM courier.core_ack(NULL, ARRAY[mid], ARRAY[ack.lease_token]);
    IF lost.fault IS NOT NULL THEN
        PERFORM courier.raise_lease_fault(lost.fault, NULL, lost.message_id);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION courier.ack_all(lease_tokens text[])
    RETURNS int
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    n    int := coalesce(cardinality(lease_tokens), 0);
    ids  text[];
    most int;
    lost record;
BEGIN
    IF n = 0 THEN
        RETURN 0;
    END IF;
    SELECT l.max_batch INTO most FROM courier_queue_limits l;
    IF n > most THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = format('at most %s tokens per acknowledgement', most);
    END IF;
    ids := ARRAY(SELECT courier.message_of(t) FROM unnest(lease_tokens) t);
    IF (SELECT count(DISTINCT x) FROM unnest(ids) x) <> n THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'a message is named twice in one acknowledgement';
    END IF;
    SELECT * INTO lost FROM courier.core_ack(NULL, ids, lease_tokens);
    IF lost.fault IS NOT NULL THEN
        PERFORM courier.raise_lease_fault(lost.fault, NULL, lost.message_id);
    END IF;
    RETURN n;
END
$$;

CREATE OR REPLACE FUNCTION courier.renew(lease_token text, extension interval)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    mid    text := courier.message_of(renew.lease_token);
    expiry timestamptz;
    fault  text;
BEGIN
    IF extension IS NULL OR extension <= interval '0' OR extension > interval '12 hours' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'a lease must be longer than 0 and at most 12 hours';
    END IF;
    expiry := clock_timestamp() + extension;
    fault := courier.core_renew(NULL, mid, renew.lease_token, expiry);
    IF fault IS NOT NULL THEN
        PERFORM courier.raise_lease_fault(fault, NULL, mid);
    END IF;
    RETURN expiry;
END
$$;

CREATE OR REPLACE FUNCTION courier.release(lease_token text, delay interval DEFAULT NULL, reason text DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    mid  text := courier.message_of(release.lease_token);
    done record;
BEGIN
    IF delay < interval '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'delay must not be negative';
    END IF;
    SELECT * INTO done FROM courier.core_release(NULL, mid, release.lease_token, clock_timestamp(), delay, reason);
    IF done.fault IS NOT NULL THEN
        PERFORM courier.raise_lease_fault(done.fault, NULL, mid);
    END IF;
END
$$;

DROP FUNCTION courier.lease_lost(text);

-- CREATE OR REPLACE keeps the owner and the grants but replaces the SET clauses: the search_path again, as V14.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = 'courier'::regnamespace AND p.prosecdef LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
    END LOOP;
END
$$;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA courier FROM PUBLIC;
