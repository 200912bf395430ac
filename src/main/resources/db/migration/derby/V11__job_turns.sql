-- The reliable service's purge and the audit retention run on one server at a time, as the queue's sweeper does
-- (platform.JobTurns): before, each ran on every server.
INSERT INTO courier_job_lease (name, owner, expires_at) VALUES ('reliable.purge', NULL, TIMESTAMP('1970-01-01 00:00:00'));
INSERT INTO courier_job_lease (name, owner, expires_at) VALUES ('audit.retention', NULL, TIMESTAMP('1970-01-01 00:00:00'));
