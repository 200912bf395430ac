-- twophase: the XA probe slice. A record written together with a JMS message in one XA transaction,
-- and the receipt the listener writes when that message arrives (at most one per record).
CREATE TABLE courier_probe_record (
    id         VARCHAR(36)   NOT NULL PRIMARY KEY,
    body       VARCHAR(1000) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE TABLE courier_probe_receipt (
    record_id      VARCHAR(36)   NOT NULL PRIMARY KEY,
    message_id     VARCHAR(200)  NOT NULL,
    body           VARCHAR(1000) NOT NULL,
    delivery_count INT           NOT NULL,
    received_at    TIMESTAMP WITH TIME ZONE NOT NULL
);
