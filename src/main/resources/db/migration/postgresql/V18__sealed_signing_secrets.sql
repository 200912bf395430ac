-- Producers' signing secrets are stored sealed (AES-GCM under a key outside the database: SecretSeal), longer than
-- the clear 43 characters; ProducerSecretsSealing seals those stored before at start.
ALTER TABLE courier_rm_producer ALTER COLUMN signing_secret TYPE VARCHAR(200);
