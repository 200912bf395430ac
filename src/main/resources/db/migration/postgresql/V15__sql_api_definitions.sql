-- The SQL API, second part (issue 49): define and drop queues, list, replay and purge dead messages, with the
-- rules of the Java API (Queues, DeadLetters, QueueSpec) and V14's errors, plus CQ4L9 for the queue limit
-- (courier.queue.max-queues; REST answers 409). A queue defined here is seen by Courier's servers within their
-- settings' time to live (courier.queue.settings-ttl, 1 s). Grants (who may use the queue through REST) are
-- Courier's business: a queue defined here has none, and redefining it keeps those it has.

ALTER TABLE courier_queue_limits ADD COLUMN max_queues INT NOT NULL DEFAULT 100;

-- Creates the queue, or updates its settings: a null argument takes Courier's default (lease 10 s, 10 attempts,
-- backoff 1 s × 2 up to 5 min), as a REST definition that leaves it out. Returns true when it created the queue.
-- Messages already queued keep their state and follow the new settings from their next delivery on.
CREATE FUNCTION courier.define_queue(queue text, lease interval DEFAULT NULL, max_attempts int DEFAULT NULL,
                                     backoff_initial interval DEFAULT NULL,
                                     backoff_multiplier double precision DEFAULT NULL,
                                     backoff_max interval DEFAULT NULL)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
DECLARE
    now_       timestamptz := clock_timestamp();
    lease_millis bigint := round(extract(epoch FROM coalesce(lease, interval '10 seconds')) * 1000);
    attempts   int := coalesce(max_attempts, 10);
    initial_ms bigint := round(extract(epoch FROM coalesce(backoff_initial, interval '1 second')) * 1000);
    multiplier double precision := coalesce(backoff_multiplier, 2.0);
    max_ms     bigint := round(extract(epoch FROM coalesce(backoff_max, interval '5 minutes')) * 1000);
    limit_     int;
BEGIN
    IF queue IS NULL OR queue !~ '^[A-Za-z][A-Za-z0-9_]{0,62}$' THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400',
            MESSAGE = format('%L is not a queue name: a letter, then up to 62 letters, digits or underscores', queue);
    END IF;
    IF lease_millis <= 0 OR lease_millis > 12 * 3600 * 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'a lease must be longer than 0 and at most 12 hours';
    END IF;
    IF attempts < 1 OR attempts > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'max_attempts must be between 1 and 1000';
    END IF;
    IF initial_ms < 0 OR max_ms < initial_ms OR max_ms > 86400 * 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400',
            MESSAGE = 'backoff needs 0 <= backoff_initial <= backoff_max <= 1 day';
    END IF;
    IF NOT (multiplier >= 1.0 AND multiplier <= 100.0) THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'backoff_multiplier must be between 1 and 100';
    END IF;
    FOR pass IN 1..2 LOOP
        UPDATE courier_queue q
        SET lease_ms = lease_millis, max_attempts = attempts, backoff_initial_ms = initial_ms,
            backoff_multiplier = multiplier, backoff_max_ms = max_ms, updated_at = now_
        WHERE q.name = queue;
        IF FOUND THEN
            RETURN false;
        END IF;
        IF pass = 1 THEN
            -- Creations wait for each other here, as Courier's own do (Queues.define), so the count sees every
            -- queue created before; the second pass then finds a queue a concurrent call just created.
            UPDATE courier_job_lease SET owner = owner WHERE name = 'queue.definitions';
        END IF;
    END LOOP;
    SELECT l.max_queues INTO limit_ FROM courier_queue_limits l;
    IF (SELECT count(*) FROM courier_queue) >= limit_ THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ4L9',
            MESSAGE = format('at most %s queues may exist (courier.queue.max-queues); drop one first', limit_);
    END IF;
    INSERT INTO courier_queue (name, lease_ms, max_attempts, backoff_initial_ms, backoff_multiplier, backoff_max_ms,
                               created_at, updated_at, grants)
    VALUES (queue, lease_millis, attempts, initial_ms, multiplier, max_ms, now_, now_, NULL);
    RETURN true;
END
$$;

-- Drops the queue with all its messages (live and dead) and idempotency keys; CQ404 when there is none.
CREATE FUNCTION courier.drop_queue(queue text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
BEGIN
    PERFORM 1 FROM courier_queue q WHERE q.name = queue FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ404', MESSAGE = format('there is no queue %L', queue);
    END IF;
    DELETE FROM courier_idempotency_key k WHERE k.queue = drop_queue.queue;
    DELETE FROM courier_queue q WHERE q.name = queue; -- its messages with it (ON DELETE CASCADE)
END
$$;

-- Raises CQ404 unless the queue exists (the dead-letter functions' check).
CREATE FUNCTION courier.require_queue(queue text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM courier_queue q WHERE q.name = queue) THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ404', MESSAGE = format('there is no queue %L', queue);
    END IF;
END
$$;

-- A page of the queue's dead messages in id order, after the id given (null: from the first), at most max
-- (1 to 500, as REST's pages), each with its last error and the history of its failed attempts (a JSON array).
CREATE FUNCTION courier.dead_letters(queue text, after uuid DEFAULT NULL, max int DEFAULT 100)
    RETURNS TABLE (id uuid, attempt int, payload jsonb, headers jsonb, payload_type text, last_error text,
                   history jsonb, created_at timestamptz, dead_at timestamptz)
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
#variable_conflict use_column
BEGIN
    PERFORM courier.require_queue(queue);
    IF max IS NULL OR max < 1 OR max > 500 THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'max must be between 1 and 500';
    END IF;
    RETURN QUERY
    SELECT m.id::uuid, m.attempt,
           CASE WHEN m.payload_type = 'JSON' THEN convert_from(m.payload, 'UTF8')::jsonb
                ELSE to_jsonb(translate(encode(m.payload, 'base64'), E'\n', '')) END,
           coalesce(m.headers::jsonb, '{}'::jsonb), m.payload_type::text, m.last_error::text,
           (SELECT coalesce(jsonb_agg(line::jsonb ORDER BY n), '[]'::jsonb)
            FROM regexp_split_to_table(rtrim(coalesce(m.history, ''), E'\n'), E'\n') WITH ORDINALITY AS h (line, n)
            WHERE line <> ''),
           m.created_at, m.dead_at
    FROM courier_message m
    WHERE m.queue = dead_letters.queue AND m.state = 'DEAD' AND m.id > coalesce(after::text, '')
    ORDER BY m.id
    LIMIT max;
END
$$;

-- Makes dead messages live again: deliverable from now, attempts counted afresh, history kept; ids null or empty
-- for every dead message of the queue. With a rate, the i-th (in id order, from 0) becomes deliverable i / rate
-- seconds from now, so that replaying many does not flood the receivers. Ids that are not dead messages of the
-- queue are skipped. Returns how many it replayed.
CREATE FUNCTION courier.replay(queue text, ids uuid[] DEFAULT NULL, rate double precision DEFAULT NULL)
    RETURNS int
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
    now_     timestamptz := clock_timestamp();
    replayed int;
BEGIN
    PERFORM courier.require_queue(queue);
    IF rate IS NOT NULL AND NOT rate > 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'CQ400', MESSAGE = 'rate must be greater than 0';
    END IF;
    -- Locked in id order: two replays or purges lock rows in one order and never deadlock.
    WITH locked AS (
        SELECT m.id FROM courier_message m
        WHERE m.queue = replay.queue AND m.state = 'DEAD'
          AND (ids IS NULL OR cardinality(ids) = 0 OR m.id = ANY (ids::text[]))
        ORDER BY m.id FOR UPDATE),
    numbered AS (SELECT l.id, row_number() OVER (ORDER BY l.id) - 1 AS i FROM locked l)
    UPDATE courier_message m
    SET state = 'READY', attempt = 0, dead_at = NULL, version = m.version + 1,
        deliver_at = now_ + CASE WHEN rate IS NULL THEN interval '0' ELSE make_interval(secs => n.i / rate) END
    FROM numbered n
    WHERE m.id = n.id;
    GET DIAGNOSTICS replayed = ROW_COUNT;
    RETURN replayed;
END
$$;

-- Deletes dead messages for good; ids null or empty for every dead message of the queue. Returns how many.
CREATE FUNCTION courier.purge(queue text, ids uuid[] DEFAULT NULL)
    RETURNS int
    LANGUAGE plpgsql SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
    purged int;
BEGIN
    PERFORM courier.require_queue(queue);
    WITH locked AS (
        SELECT m.id FROM courier_message m
        WHERE m.queue = purge.queue AND m.state = 'DEAD'
          AND (ids IS NULL OR cardinality(ids) = 0 OR m.id = ANY (ids::text[]))
        ORDER BY m.id FOR UPDATE)
    DELETE FROM courier_message m USING locked l WHERE m.id = l.id;
    GET DIAGNOSTICS purged = ROW_COUNT;
    RETURN purged;
END
$$;

-- As V14: each SECURITY DEFINER function reads the tables' schema, then pg_temp; callers need EXECUTE.
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
