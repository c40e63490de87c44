-- Idempotency-Key claims and outcomes live in Durable Objects (IdempotencyKeysObject) from here
-- on, so a keyed event costs D1 nothing. What stays in D1 is the answer of each keyed change made
-- in D1 alone (a schema or webhook endpoint created, a secret rotated), stored in the same
-- transaction as the change, which is made only while no answer of its key is stored. Rows older
-- than 24 h are purged by the hourly cron.
CREATE TABLE idempotent_changes (
  account_id  TEXT NOT NULL,
  key         TEXT NOT NULL,
  fingerprint TEXT NOT NULL,    -- SHA-256 of method, path and body, as the key's object has it
  created_at  INTEGER NOT NULL, -- the key's claim instant
  body        TEXT NOT NULL,    -- the change's answer (its status is the route's success status)
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotent_changes_by_age ON idempotent_changes (created_at);

-- The successes recorded before: a schema or endpoint made before the deploy still replays, and
-- its key is still refused for another request of those routes. idempotency_keys itself stays
-- while the Worker of before may run (migrations only add); nothing reads it after the deploy.
INSERT INTO idempotent_changes (account_id, key, fingerprint, created_at, body)
  SELECT account_id, key, fingerprint, created_at, body FROM idempotency_keys
  WHERE status BETWEEN 200 AND 299 AND body IS NOT NULL;
