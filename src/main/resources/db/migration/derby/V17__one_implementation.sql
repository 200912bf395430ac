-- PostgreSQL's V17 puts the queue's state changes in functions that the SQL API and the server share; Derby has
-- no SQL API and keeps them in Java (DerbyQueueDialect), and keeps the version so both databases ship the same
-- consecutive versions (SchemaMigrationTest). Changes nothing.
UPDATE courier_queue_limits SET id = id WHERE 1 = 0;
