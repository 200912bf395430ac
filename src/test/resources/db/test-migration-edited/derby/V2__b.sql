-- test: a second table
CREATE TABLE probe_b (id INT NOT NULL PRIMARY KEY);
INSERT INTO probe_b (id) VALUES (1);
