-- scenario: the demo business's orders service keeps its orders here, beside the transactional queue it uses.
-- state: PLACED (asynchronous modes, outcome not known yet), RESERVED, REJECTED (out of stock, compensated).
CREATE TABLE scenario_order (
    id         VARCHAR(36)  NOT NULL PRIMARY KEY,
    mode       VARCHAR(5)   NOT NULL,
    sku        VARCHAR(63)  NOT NULL,
    quantity   INT          NOT NULL,
    state      VARCHAR(10)  NOT NULL,
    created_at TIMESTAMP    NOT NULL,
    settled_at TIMESTAMP
);
CREATE INDEX scenario_order_mode ON scenario_order (mode, state);
