-- reliable: a producer's signing secret; Courier signs every call it makes to the producer with it.
ALTER TABLE courier_rm_producer ADD COLUMN signing_secret VARCHAR(64);
