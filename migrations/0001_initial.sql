-- Accounts and their API tokens. Tokens are stored only as the SHA-256 of the secret.
CREATE TABLE accounts (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  created_at INTEGER NOT NULL -- epoch ms
);

CREATE TABLE api_tokens (
  id         TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  token_hash TEXT NOT NULL UNIQUE, -- hex SHA-256 of the whole token
  prefix     TEXT NOT NULL,        -- first characters of the token, to recognise it in listings
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX api_tokens_by_account ON api_tokens (account_id, created_at);

-- Contract templates. Ids are UUIDv7, so (created_at, id) is also insertion order.
CREATE TABLE schemas (
  id         TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  contract   TEXT NOT NULL, -- JSON
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX schemas_by_account ON schemas (account_id, created_at DESC, id DESC);

-- The list index of candidates. The candidate's Durable Object is the source of truth and
-- writes this row (guarded by version, so a late or repeated write never goes backwards).
-- Status is not stored: it is computed from the timeline at the instant of each query.
CREATE TABLE candidates (
  id            TEXT PRIMARY KEY, -- UUIDv7: newest first and the list cursor are this column
  account_id    TEXT NOT NULL REFERENCES accounts (id),
  alias         TEXT NOT NULL,
  customer_uuid TEXT NOT NULL,
  schema_id     TEXT,
  contract      TEXT NOT NULL, -- JSON snapshot
  created_at    INTEGER NOT NULL,
  open_until    INTEGER NOT NULL,
  pending_until INTEGER NOT NULL,
  final_status  TEXT NOT NULL CHECK (final_status IN ('CONFIRMED', 'FAILED')),
  version       INTEGER NOT NULL
);
CREATE INDEX candidates_by_account ON candidates (account_id, id DESC);
CREATE INDEX candidates_by_customer ON candidates (account_id, customer_uuid, id DESC);
