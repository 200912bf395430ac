-- test: a third table
CREATE TABLE probe_c (id INT NOT NULL PRIMARY KEY);
