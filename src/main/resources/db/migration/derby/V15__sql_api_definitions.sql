-- The SQL API's definitions (PostgreSQL's V15): Derby has no SQL API; the limits row gains the queue limit all
-- the same, which Courier writes at start (QueueLimitsRow).
ALTER TABLE courier_queue_limits ADD COLUMN max_queues INT NOT NULL DEFAULT 100;
