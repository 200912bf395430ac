-- The SQL API does what the server does where the two had drifted (issue 49: SQL, library and REST cannot drift).
--
-- courier.receive (V14) now records an expired lease as the server's receive does: a message leased again after
-- its lease ran out gets the history line {"attempt": <the expired attempt>, "failedAt": <when it expired>,
-- "kind": "EXPIRED", "reason": "lease expired"}, so that a message's history is the same whichever way it was
-- received (QueueSqlApiIT's scenario through SQL, the library and REST). The row's previous lease expiry is
-- still in lease_expires_at when it is leased again: an acknowledgement deletes the row, a release clears it.
CREATE OR REPLACE FUNCTION courier.receive(queue text, max int DEFAULT 1, lease interval DEFAULT NULL)
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

-- courier.send_batch (V14), and so courier.send, refuses what the server refuses: a key of blanks only and a blank
-- header name (SendOptions), both CQ400, as REST answers 400 for them.
CREATE OR REPLACE FUNCTION courier.send_batch(queue text, payloads jsonb[], delay interval DEFAULT NULL, keys text[] DEFAULT NULL,
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

-- CREATE OR REPLACE keeps the owner and the grants but replaces the SET clauses: the search_path again, as V14.
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION courier.receive(text, int, interval) SET search_path = %I, pg_temp',
                   current_schema());
    EXECUTE format('ALTER FUNCTION courier.send_batch(text, jsonb[], interval, text[], jsonb[]) '
                   'SET search_path = %I, pg_temp', current_schema());
END
$$;
