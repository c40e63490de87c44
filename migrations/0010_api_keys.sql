-- API keys: the account's tokens gain a name, permissions, an expiry, when they were last used,
-- and the last characters of their secret (to tell them apart). Every existing token stays a
-- full-access key that never expires.
ALTER TABLE api_tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN permissions TEXT;   -- JSON array of "resource:level"; NULL: every permission
ALTER TABLE api_tokens ADD COLUMN expires_at INTEGER; -- epoch ms; NULL: never
ALTER TABLE api_tokens ADD COLUMN last_used_at INTEGER;
ALTER TABLE api_tokens ADD COLUMN last4 TEXT;         -- NULL for tokens made before this
UPDATE api_tokens SET name = 'Key created ' || strftime('%Y-%m-%d', created_at / 1000, 'unixepoch');
-- Keys newest first per account, ties broken by id: the order and cursor of their list (ids of
-- tokens made by the accounts CLI before this are random UUIDs, so the id alone is no order).
CREATE INDEX api_tokens_newest ON api_tokens (account_id, created_at DESC, id DESC);

-- One-time dashboard sign-in codes, stored only as their SHA-256; used once, within 15 minutes.
CREATE TABLE sign_in_links (
  code_hash  TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
);
