-- reliable: the outbox. A confirm (and a redelivery, a replay) commits a row here in its one local transaction,
-- instead of sending to the broker inside an XA transaction; the relay (dev.courier.reliable.Relay) publishes
-- rows in batches, each in a local JMS transaction, and deletes them once the broker has committed. A crash
-- between the two publishes a row again: the wire is at-least-once, the consumer's inbox absorbs it.
-- subscriber: null for the publish to every subscriber, else the one subscriber a redelivery is for.
CREATE TABLE courier_rm_outbox (
    id         VARCHAR(36) NOT NULL PRIMARY KEY,
    message_id VARCHAR(36) NOT NULL REFERENCES courier_rm_message (id) ON DELETE CASCADE,
    subscriber VARCHAR(63),
    attempt    INT         NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX courier_rm_outbox_created ON courier_rm_outbox (created_at);
CREATE INDEX courier_rm_outbox_message ON courier_rm_outbox (message_id);
