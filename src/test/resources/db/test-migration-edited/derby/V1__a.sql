-- test: V1 of test-migration, edited after it was applied
CREATE TABLE probe_a (id INT NOT NULL PRIMARY KEY, edited INT);
