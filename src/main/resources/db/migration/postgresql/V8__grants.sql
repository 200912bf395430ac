-- access: who besides the role may send to and consume from a queue or a topic (dev.courier.access.Grants,
-- a line per action); null: the role decides. A topic has a row here only once it has grants.
ALTER TABLE courier_queue ADD COLUMN grants VARCHAR(10000);
CREATE TABLE courier_rm_topic (
    name       VARCHAR(63)    NOT NULL PRIMARY KEY,
    grants     VARCHAR(10000),
    updated_at TIMESTAMPTZ    NOT NULL
);
