-- The limits Courier's configuration sets (courier.queue.*), kept in the database for the SQL API's functions
-- (PostgreSQL's V14, of the same name); Derby has no SQL API, and keeps the row so both databases have the same tables.
CREATE TABLE courier_queue_limits (
    id                    INT     NOT NULL PRIMARY KEY CHECK (id = 1),
    max_payload_bytes     INT     NOT NULL,
    idempotency_window_ms BIGINT  NOT NULL,
    max_receive           INT     NOT NULL,
    max_batch             INT     NOT NULL,
    max_page_bytes        BIGINT  NOT NULL
);
INSERT INTO courier_queue_limits VALUES (1, 262144, 86400000, 1000, 1000, 4194304);
