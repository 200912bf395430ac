-- The SQL API (issue 49): the transactional queue as functions in the schema "courier", for any language, inside
-- the caller's own transaction: a send commits or rolls back with the caller's other writes, an acknowledgement
-- that cannot delete exactly one row raises and so aborts the caller's transaction. docs/queue.md has the
-- reference; the semantics are the Java API's (TransactionalQueue), and QueueSqlApiIT runs one scenario through
-- SQL and REST and compares the rows.
--
-- Errors are raised with SQLSTATEs of class CQ, named after the HTTP status REST answers for the same fault:
-- CQ400 bad input, CQ404 no such queue, CQ409 stale lease (another lease replaced it), CQ410 message gone
-- (acknowledged, or never existed), CQ413 payload too large. An error aborts the caller's transaction: nothing
-- of the call, or of the transaction, is written.
--
-- The functions are SECURITY DEFINER, owned by the role that migrates Courier's schema: a caller needs EXECUTE on
-- them (revoked from PUBLIC below; GRANT it to the roles that may use queues), not privileges on Courier's
-- tables. Each fixes its search_path to the schema the tables are created in, then pg_temp (last, so a caller's
-- temporary table cannot stand in for Courier's), and plans on indexes, as the Java path does for its
-- transaction (QueueSql.PLAN_ON_INDEXES_POSTGRESQL).

-- The limits Courier's configuration sets (courier.queue.*), for the functions to read: one row, rewritten by
-- each Courier server at start (QueueSqlLimits); these values are the configuration's defaults.
CREATE TABLE courier_queue_limits (
    id                    INT     NOT NULL PRIMARY KEY CHECK (id = 1),
    max_payload_bytes     INT     NOT NULL,
    idempotency_window_ms BIGINT  NOT NULL,
    max_receive           INT     NOT NULL,
    max_batch             INT     NOT NULL,
    max_page_bytes        BIGINT  NOT NULL
);
INSERT INTO courier_queue_limits VALUES (1, 262144, 86400000, 1000, 1000, 4194304);

CREATE SCHEMA courier;
REVOKE ALL ON SCHEMA courier FROM PUBLIC;

-- Sends messages to one queue: all or none. Results in the order of the payloads: the new message's id, or, for
-- a key already used on the queue within the idempotency window, the original's id with duplicate = true (and
-- nothing new is written).
CREATE FUNCTION courier.send_batch(queue text, payloads jsonb[], delay interval DEFAULT NULL, keys text[] DEFAULT NULL,
                                   headers jsonb[] DEFAULT NULL)
    RETURNS TABLE (id uuid, duplicate boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    q           record;
    now_        timestamptz := clock_timestamp();
    at_         timestamptz;
    n           int := coalesce(cardinality(payloads), 0);
    i           int;
    new_id      text;
    bound       text;
    header_text text;
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
            IF length(headers[i]::text) > 8000 THEN
                RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'headers take more than 8000 characters as JSON';
            END IF;
        END IF;
        IF keys IS NOT NULL AND keys[i] IS NOT NULL AND (length(keys[i]) < 1 OR length(keys[i]) > 200) THEN
            RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'key must be 1 to 200 characters';
        END IF;
    END LOOP;
    at_ := now_ + coalesce(delay, interval '0');
    IF keys IS NULL THEN
        RETURN QUERY
        WITH fresh AS (
            SELECT gen_random_uuid() AS nid, p, o FROM unnest(payloads) WITH ORDINALITY AS t (p, o)),
        written AS (
            INSERT INTO courier_message (id, queue, state, deliver_at, attempt, version, idempotency_key, payload_type,
                                         payload, headers, created_at)
            SELECT nid::text, q.name, 'READY', at_, 0, 0, NULL, 'JSON', convert_to(p::text, 'UTF8'),
                   CASE WHEN headers IS NULL OR headers[o] IS NULL OR headers[o] = '{}'::jsonb THEN NULL
                        ELSE headers[o]::text END,
                   now_
            FROM fresh)
        SELECT nid, false FROM fresh ORDER BY o;
        RETURN;
    END IF;
    -- Keyed: each key is bound to its message unless a live binding exists (QueueDialect.KEY_RELEASED).
    FOR i IN 1..n LOOP
        new_id := gen_random_uuid()::text;
        IF keys[i] IS NOT NULL THEN
            bound := NULL;
            INSERT INTO courier_idempotency_key AS k (queue, idem_key, message_id, deliver_at, expires_at)
            VALUES (q.name, keys[i], new_id, at_, now_ + make_interval(secs => q.idempotency_window_ms / 1000.0))
            ON CONFLICT (queue, idem_key) DO UPDATE
                SET message_id = EXCLUDED.message_id, deliver_at = EXCLUDED.deliver_at, expires_at = EXCLUDED.expires_at
                WHERE k.expires_at <= now_
                  AND NOT EXISTS (SELECT 1 FROM courier_message m WHERE m.id = k.message_id)
            RETURNING k.message_id INTO bound;
            IF bound IS NULL THEN
                SELECT k.message_id INTO bound FROM courier_idempotency_key k
                WHERE k.queue = q.name AND k.idem_key = keys[i];
                id := bound::uuid;
                duplicate := true;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;
        header_text := CASE WHEN headers IS NULL OR headers[i] IS NULL OR headers[i] = '{}'::jsonb THEN NULL
                            ELSE headers[i]::text END;
        INSERT INTO courier_message (id, queue, state, deliver_at, attempt, version, idempotency_key, payload_type,
                                     payload, headers, created_at)
        VALUES (new_id, q.name, 'READY', at_, 0, 0, keys[i], 'JSON', convert_to(payloads[i]::text, 'UTF8'),
                header_text, now_);
        id := new_id::uuid;
        duplicate := false;
        RETURN NEXT;
    END LOOP;
END
$$;

-- Sends one message; returns its id (or, for a key used within the idempotency window, the original's).
CREATE FUNCTION courier.send(queue text, payload jsonb, delay interval DEFAULT NULL, key text DEFAULT NULL,
                             headers jsonb DEFAULT NULL)
    RETURNS uuid
    LANGUAGE sql SECURITY DEFINER
AS $$
    SELECT s.id FROM courier.send_batch(queue, ARRAY[payload], delay,
                                        CASE WHEN key IS NULL THEN NULL ELSE ARRAY[key] END,
                                        CASE WHEN headers IS NULL THEN NULL ELSE ARRAY[headers] END) s
$$;

-- Leases up to max deliverable messages (delivery time reached, not leased) for lease (null: the queue's), in
-- the caller's transaction: if it rolls back, the leases are undone. Each lease moves the message's delivery
-- time to the lease's expiry plus the queue's backoff for this attempt, jittered into [50 %, 100 %]: a lease that
-- runs out delivers the message again by itself. Payloads are JSON; a bytes payload (sent through REST or Java)
-- comes as a base64 JSON string, payload_type saying which.
CREATE FUNCTION courier.receive(queue text, max int DEFAULT 1, lease interval DEFAULT NULL)
    RETURNS TABLE (id uuid, lease_token text, attempt int, payload jsonb, headers jsonb,
                   lease_expires_at timestamptz, created_at timestamptz, payload_type text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    q      record;
    now_   timestamptz := clock_timestamp();
    expiry timestamptz;
    nonce  text := replace(gen_random_uuid()::text, '-', '');
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
    expiry := now_ + coalesce(lease, make_interval(secs => q.lease_ms / 1000.0));
    RETURN QUERY
    WITH picked AS (
        SELECT m.id, m.deliver_at, octet_length(m.payload) AS size
        FROM courier_message m
        WHERE m.queue = q.name AND m.state = 'READY' AND m.deliver_at <= now_ AND m.attempt < q.max_attempts
        ORDER BY m.deliver_at
        LIMIT max
        FOR UPDATE SKIP LOCKED)
    UPDATE courier_message m
    SET attempt = m.attempt + 1,
        lease_token = m.id || '.' || nonce,
        lease_expires_at = expiry,
        deliver_at = expiry + make_interval(secs => CASE WHEN m.attempt + 1 >= q.max_attempts THEN 0
            ELSE least(q.backoff_initial_ms * power(q.backoff_multiplier, m.attempt), q.backoff_max_ms) / 1000.0
                 * (0.5 + 0.5 * random()) END),
        version = m.version + 1
    -- The ids as one array, computed once: the planner, which thinks a queue's table nearly empty, otherwise
    -- joins the picked rows to a scan of the whole primary key (seen: 44 ms and 3 855 buffers for 100 messages).
    WHERE m.id = ANY (ARRAY(
        SELECT b.id
        FROM (SELECT p.id, SUM(p.size) OVER (ORDER BY p.deliver_at, p.id ROWS UNBOUNDED PRECEDING) - p.size AS before
              FROM picked p) b
        WHERE b.before < q.max_page_bytes))
    RETURNING m.id::uuid, m.lease_token::text, m.attempt,
              CASE WHEN m.payload_type = 'JSON' THEN convert_from(m.payload, 'UTF8')::jsonb
                   ELSE to_jsonb(translate(encode(m.payload, 'base64'), E'\n', '')) END,
              m.headers::jsonb, m.lease_expires_at, m.created_at, m.payload_type::text;
END
$$;

-- The message id a lease token names (<id>.<nonce>); CQ400 for a string Courier never issues as a token.
CREATE FUNCTION courier.message_of(lease_token text)
    RETURNS text
    LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
    IF lease_token IS NULL OR position('.' IN lease_token) <> 37 OR length(lease_token) > 80 THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = format('%L is not a lease token', lease_token);
    END IF;
    RETURN left(lease_token, 36);
END
$$;

-- Why a lease token matched no row: CQ409 when its message is still there under another lease (or none), CQ410
-- when the message is gone (acknowledged, or never existed).
CREATE FUNCTION courier.lease_lost(message_id text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM courier_message m WHERE m.id = message_id) THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ409',
            MESSAGE = format('the lease of message %s is no longer this token''s', message_id);
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'CQ410', MESSAGE = format('message %s is gone', message_id);
END
$$;

-- Acknowledges: deletes the message if the token is its current lease. Exactly one row, or it raises (CQ409,
-- CQ410): a retried acknowledgement fails, and the caller's transaction with it.
CREATE FUNCTION courier.ack(lease_token text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    mid text := courier.message_of(ack.lease_token);
BEGIN
    DELETE FROM courier_message m WHERE m.id = mid AND m.lease_token = ack.lease_token;
    IF NOT FOUND THEN
        PERFORM courier.lease_lost(mid);
    END IF;
END
$$;

-- Acknowledges several messages: each token must delete exactly one row, or it raises for the first that did
-- not, and none is acknowledged. Returns how many.
CREATE FUNCTION courier.ack_all(lease_tokens text[])
    RETURNS int
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    n       int := coalesce(cardinality(lease_tokens), 0);
    ids     text[];
    deleted text[];
    most    int;
    i       int;
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
    WITH d AS (
        DELETE FROM courier_message m WHERE m.id = ANY (ids) AND m.lease_token = ANY (lease_tokens) RETURNING m.id)
    SELECT array_agg(d.id) INTO deleted FROM d;
    IF coalesce(cardinality(deleted), 0) <> n THEN
        FOR i IN 1..n LOOP
            IF deleted IS NULL OR NOT ids[i] = ANY (deleted) THEN
                PERFORM courier.lease_lost(ids[i]);
            END IF;
        END LOOP;
    END IF;
    RETURN n;
END
$$;

-- Extends a lease to extension from now (at most 12 hours), fenced by the token; returns the new expiry.
CREATE FUNCTION courier.renew(lease_token text, extension interval)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    mid    text := courier.message_of(renew.lease_token);
    expiry timestamptz;
BEGIN
    IF extension IS NULL OR extension <= interval '0' OR extension > interval '12 hours' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'a lease must be longer than 0 and at most 12 hours';
    END IF;
    expiry := clock_timestamp() + extension;
    UPDATE courier_message m
    SET lease_expires_at = expiry,
        deliver_at = expiry + make_interval(secs => CASE WHEN m.attempt >= q.max_attempts THEN 0
            ELSE least(q.backoff_initial_ms * power(q.backoff_multiplier, m.attempt - 1), q.backoff_max_ms) / 1000.0
                 * (0.5 + 0.5 * random()) END),
        version = m.version + 1
    FROM courier_queue q
    WHERE q.name = m.queue AND m.id = mid AND m.lease_token = renew.lease_token AND m.state = 'READY';
    IF NOT FOUND THEN
        PERFORM courier.lease_lost(mid);
    END IF;
    RETURN expiry;
END
$$;

-- Gives a message back before its lease ends, as a failed attempt kept in its history with the reason: delivered
-- again after delay (null: the queue's backoff), or dead if it has no attempts left.
CREATE FUNCTION courier.release(lease_token text, delay interval DEFAULT NULL, reason text DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET enable_seqscan = off SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    mid  text := courier.message_of(release.lease_token);
    now_ timestamptz := clock_timestamp();
    why  text := CASE WHEN reason IS NULL OR btrim(reason) = '' THEN 'released'
                      WHEN length(reason) > 1000 THEN left(reason, 999) || '…' ELSE reason END;
BEGIN
    IF delay < interval '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'delay must not be negative';
    END IF;
    WITH line AS (
        SELECT m.id,
               json_build_object('attempt', m.attempt,
                                 'failedAt', to_char(now_ AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                 'kind', 'RELEASED', 'reason', why)::text || E'\n' AS text
        FROM courier_message m WHERE m.id = mid)
    UPDATE courier_message m
    SET state = CASE WHEN m.attempt >= q.max_attempts THEN 'DEAD' ELSE 'READY' END,
        deliver_at = now_ + coalesce(delay, make_interval(secs => CASE WHEN m.attempt >= q.max_attempts THEN 0
            ELSE least(q.backoff_initial_ms * power(q.backoff_multiplier, m.attempt - 1), q.backoff_max_ms) / 1000.0
                 * (0.5 + 0.5 * random()) END)),
        lease_token = NULL,
        lease_expires_at = NULL,
        last_error = why,
        dead_at = CASE WHEN m.attempt >= q.max_attempts THEN now_ END,
        history = CASE WHEN length(coalesce(m.history, '')) + length(line.text) > 32000 THEN m.history
                       ELSE coalesce(m.history, '') || line.text END,
        version = m.version + 1
    FROM courier_queue q, line
    WHERE q.name = m.queue AND line.id = m.id AND m.id = mid AND m.lease_token = release.lease_token
      AND m.state = 'READY';
    IF NOT FOUND THEN
        PERFORM courier.lease_lost(mid);
    END IF;
END
$$;

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
