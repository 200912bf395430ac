-- Jobs that run on one server at a time (see the PostgreSQL script). Embedded Derby has one server, but the
-- sweeper takes its turn the same way on both databases.
CREATE TABLE courier_job_lease (
    name       VARCHAR(63)  NOT NULL PRIMARY KEY,
    owner      VARCHAR(200),
    expires_at TIMESTAMP    NOT NULL
);
INSERT INTO courier_job_lease (name, owner, expires_at) VALUES ('queue.sweeper', NULL, TIMESTAMP('1970-01-01 00:00:00'));
INSERT INTO courier_job_lease (name, owner, expires_at) VALUES ('queue.definitions', NULL, TIMESTAMP('1970-01-01 00:00:00'));
CREATE TABLE courier_sweep_run (
    owner       VARCHAR(200) NOT NULL,
    started_at  TIMESTAMP    NOT NULL,
    finished_at TIMESTAMP    NOT NULL,
    moved_dead  INT          NOT NULL,
    purged      INT          NOT NULL
);
CREATE INDEX courier_sweep_run_started ON courier_sweep_run (started_at);
DROP INDEX courier_message_claim;
CREATE INDEX courier_message_due ON courier_message (queue, state, deliver_at, attempt);
