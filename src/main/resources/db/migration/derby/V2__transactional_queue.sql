-- queue: the transactional queue. A queue is a row of courier_queue; its messages are rows of courier_message.
CREATE TABLE courier_queue (
    name               VARCHAR(63) NOT NULL PRIMARY KEY,
    lease_ms           BIGINT      NOT NULL,
    max_attempts       INT         NOT NULL,
    backoff_initial_ms BIGINT      NOT NULL,
    backoff_multiplier DOUBLE      NOT NULL,
    backoff_max_ms     BIGINT      NOT NULL,
    created_at         TIMESTAMP   NOT NULL,
    updated_at         TIMESTAMP   NOT NULL
);
-- history holds one JSON line per failed attempt (lease expired or released), appended in place.
-- state is READY or DEAD. A READY row is SCHEDULED, deliverable or LEASED depending on deliver_at and the lease:
-- a lease moves deliver_at to the lease expiry plus the queue's backoff, so the claim query only compares deliver_at.
CREATE TABLE courier_message (
    id               VARCHAR(36)   NOT NULL PRIMARY KEY,
    queue            VARCHAR(63)   NOT NULL REFERENCES courier_queue (name) ON DELETE CASCADE,
    state            VARCHAR(8)    NOT NULL,
    deliver_at       TIMESTAMP     NOT NULL,
    attempt          INT           NOT NULL,
    lease_token      VARCHAR(80),
    lease_expires_at TIMESTAMP,
    version          BIGINT        NOT NULL,
    idempotency_key  VARCHAR(200),
    payload_type     VARCHAR(5)    NOT NULL,
    payload          BLOB(16M)     NOT NULL,
    headers          VARCHAR(8000),
    created_at       TIMESTAMP     NOT NULL,
    last_error       VARCHAR(1000),
    history          VARCHAR(32000),
    dead_at          TIMESTAMP
);
CREATE INDEX courier_message_claim ON courier_message (queue, state, deliver_at);
-- Idempotency keys outlive their messages (an acked message is deleted) for the configured window.
CREATE TABLE courier_idempotency_key (
    queue      VARCHAR(63)  NOT NULL,
    idem_key   VARCHAR(200) NOT NULL,
    message_id VARCHAR(36)  NOT NULL,
    deliver_at TIMESTAMP    NOT NULL,
    expires_at TIMESTAMP    NOT NULL,
    PRIMARY KEY (queue, idem_key)
);
CREATE INDEX courier_idempotency_key_expiry ON courier_idempotency_key (expires_at);
