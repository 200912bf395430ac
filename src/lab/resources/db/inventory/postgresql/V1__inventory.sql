-- The scenario's inventory service, in a database of its own. No CHECK on available and no unique key on
-- reservations: the mechanisms must keep stock non-negative and reservations single, and the lab counts it.
CREATE TABLE scenario_stock (
    sku       VARCHAR(63) NOT NULL PRIMARY KEY,
    available INT         NOT NULL
);
CREATE TABLE scenario_reservation (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id   VARCHAR(36)  NOT NULL,
    sku        VARCHAR(63)  NOT NULL,
    quantity   INT          NOT NULL,
    mode       VARCHAR(5)   NOT NULL,
    created_at TIMESTAMPTZ  NOT NULL
);
CREATE INDEX scenario_reservation_order ON scenario_reservation (order_id);
-- The inbox of the queue mode's worker: one row per order processed, with its outcome.
CREATE TABLE scenario_inbox (
    order_id   VARCHAR(36)  NOT NULL PRIMARY KEY,
    outcome    VARCHAR(10)  NOT NULL,
    created_at TIMESTAMPTZ  NOT NULL
);
