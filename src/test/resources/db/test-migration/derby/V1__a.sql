-- test: a first table
CREATE TABLE probe_a (id INT NOT NULL PRIMARY KEY);
