-- Jobs that run on one server at a time: the server named in owner runs the job until expires_at (database time),
-- renewing as it goes; when it dies, another server takes the job once the lease has expired.
CREATE TABLE courier_job_lease (
    name       VARCHAR(63)  NOT NULL PRIMARY KEY,
    owner      VARCHAR(200),
    expires_at TIMESTAMPTZ  NOT NULL
);
INSERT INTO courier_job_lease (name, owner, expires_at) VALUES ('queue.sweeper', NULL, TIMESTAMPTZ '1970-01-01 00:00:00+00');
-- Not a job: the row that creations of queues lock, one at a time across servers, so the queue limit holds.
INSERT INTO courier_job_lease (name, owner, expires_at) VALUES ('queue.definitions', NULL, TIMESTAMPTZ '1970-01-01 00:00:00+00');
-- Each sweep, in database time: the record that one server swept at a time. The sweeper keeps the last day.
CREATE TABLE courier_sweep_run (
    owner       VARCHAR(200) NOT NULL,
    started_at  TIMESTAMPTZ  NOT NULL,
    finished_at TIMESTAMPTZ  NOT NULL,
    moved_dead  INT          NOT NULL,
    purged      INT          NOT NULL
);
CREATE INDEX courier_sweep_run_started ON courier_sweep_run (started_at);
-- The claim and the sweep both ask "live, due, attempts below/at the limit": attempt in the index lets both
-- filter without visiting the table for rows they skip.
DROP INDEX courier_message_claim;
CREATE INDEX courier_message_due ON courier_message (queue, deliver_at) INCLUDE (attempt) WHERE state = 'READY';
