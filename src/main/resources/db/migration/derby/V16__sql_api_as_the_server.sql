-- PostgreSQL's V16 replaces two SQL API functions to do as the server does; Derby has no SQL API, and keeps the
-- version so both databases ship the same consecutive versions (SchemaMigrationTest). Changes nothing.
UPDATE courier_queue_limits SET id = id WHERE 1 = 0;
