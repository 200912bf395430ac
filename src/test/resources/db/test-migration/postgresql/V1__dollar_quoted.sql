-- test: statements with dollar-quoted bodies holding semicolons, which a split at every ';' would break.
CREATE TABLE probe_dollar (id INT NOT NULL PRIMARY KEY, note TEXT);
CREATE FUNCTION probe_dollar_note(n INT) RETURNS TEXT LANGUAGE plpgsql AS $$
BEGIN
    IF n > 1 THEN
        RETURN 'many; really';
    END IF;
    RETURN 'one;';
END;
$$;
DO $body$
BEGIN
    INSERT INTO probe_dollar (id, note) VALUES (1, probe_dollar_note(1));
    INSERT INTO probe_dollar (id, note) VALUES (2, probe_dollar_note(2));
END
$body$;
