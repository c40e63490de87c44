-- Idempotency-Key records, per account. A row is claimed (locked_until set, status NULL) while
-- its first request runs, then holds that request's response for replays. Rows older than 24 h
-- are free to be claimed again and are purged by the hourly cron.
CREATE TABLE idempotency_keys (
  account_id   TEXT NOT NULL,
  key          TEXT NOT NULL,
  fingerprint  TEXT NOT NULL, -- SHA-256 of method, path and body
  created_at   INTEGER NOT NULL,
  locked_until INTEGER,
  status       INTEGER,       -- the first response, once complete
  body         TEXT,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
