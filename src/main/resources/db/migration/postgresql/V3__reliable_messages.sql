-- reliable: the reliable message service (prepare / confirm / check-back, per-subscriber deliveries).
-- A producer is an upstream application Courier checks back with and notifies.
CREATE TABLE courier_rm_producer (
    name             VARCHAR(63)   NOT NULL PRIMARY KEY,
    check_back_url   VARCHAR(2000) NOT NULL,
    notification_url VARCHAR(2000),
    created_at       TIMESTAMPTZ   NOT NULL,
    updated_at       TIMESTAMPTZ   NOT NULL
);
-- A topic exists while it has subscribers; each subscriber has its own durable broker queue "topic.name".
CREATE TABLE courier_rm_subscriber (
    topic               VARCHAR(63) NOT NULL,
    name                VARCHAR(63) NOT NULL,
    retry_limit         INT         NOT NULL,
    delivery_timeout_ms BIGINT      NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (topic, name)
);
-- state: PENDING, SENT, COMPLETED, CANCELLED, DEAD. next_check_at is when a PENDING message is checked back;
-- a reconciler claims a due check by moving next_check_at forward (a lease) with a compare-and-swap on version.
CREATE TABLE courier_rm_message (
    id            VARCHAR(36)   NOT NULL PRIMARY KEY,
    topic         VARCHAR(63)   NOT NULL,
    producer      VARCHAR(63)   NOT NULL REFERENCES courier_rm_producer (name),
    state         VARCHAR(10)   NOT NULL,
    payload       TEXT          NOT NULL,
    headers       TEXT,
    check_back_ms BIGINT        NOT NULL,
    deliver_at    TIMESTAMPTZ,
    checks        INT           NOT NULL,
    next_check_at TIMESTAMPTZ,
    last_error    VARCHAR(1000),
    version       BIGINT        NOT NULL,
    created_at    TIMESTAMPTZ   NOT NULL,
    updated_at    TIMESTAMPTZ   NOT NULL,
    finished_at   TIMESTAMPTZ
);
CREATE INDEX courier_rm_message_check ON courier_rm_message (next_check_at) WHERE state = 'PENDING';
CREATE INDEX courier_rm_message_finished ON courier_rm_message (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX courier_rm_message_topic ON courier_rm_message (topic, state, created_at);
CREATE INDEX courier_rm_message_producer ON courier_rm_message (producer, state, created_at);
-- One row per message and subscriber: the ledger. state: DELIVERED (awaiting the report), CONSUMED, DEAD.
-- retry_limit and delivery_timeout_ms are the subscriber's at confirm time.
CREATE TABLE courier_rm_delivery (
    message_id          VARCHAR(36)   NOT NULL REFERENCES courier_rm_message (id) ON DELETE CASCADE,
    subscriber          VARCHAR(63)   NOT NULL,
    state               VARCHAR(10)   NOT NULL,
    attempts            INT           NOT NULL,
    retry_limit         INT           NOT NULL,
    delivery_timeout_ms BIGINT        NOT NULL,
    next_attempt_at     TIMESTAMPTZ,
    last_error          VARCHAR(1000),
    consumed_at         TIMESTAMPTZ,
    version             BIGINT        NOT NULL,
    PRIMARY KEY (message_id, subscriber)
);
CREATE INDEX courier_rm_delivery_due ON courier_rm_delivery (next_attempt_at) WHERE state = 'DELIVERED';
CREATE INDEX courier_rm_delivery_subscriber ON courier_rm_delivery (subscriber, state);
-- Every state change of a message (subscriber NULL) or of one delivery.
CREATE TABLE courier_rm_history (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id  VARCHAR(36)   NOT NULL,
    subscriber  VARCHAR(63),
    changed_at  TIMESTAMPTZ   NOT NULL,
    from_state  VARCHAR(10),
    to_state    VARCHAR(10)   NOT NULL,
    reason      VARCHAR(1000),
    server_name VARCHAR(200)  NOT NULL
);
CREATE INDEX courier_rm_history_message ON courier_rm_history (message_id, id);
-- Notifications to producers (a dead message, a dead delivery), written in the transaction that made it dead.
CREATE TABLE courier_rm_notice (
    id              VARCHAR(36)   NOT NULL PRIMARY KEY,
    producer        VARCHAR(63)   NOT NULL,
    message_id      VARCHAR(36)   NOT NULL,
    subscriber      VARCHAR(63),
    kind            VARCHAR(20)   NOT NULL,
    body            TEXT          NOT NULL,
    attempts        INT           NOT NULL,
    next_attempt_at TIMESTAMPTZ,
    sent_at         TIMESTAMPTZ,
    last_error      VARCHAR(1000),
    version         BIGINT        NOT NULL,
    created_at      TIMESTAMPTZ   NOT NULL
);
CREATE INDEX courier_rm_notice_due ON courier_rm_notice (next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX courier_rm_notice_message ON courier_rm_notice (message_id);
