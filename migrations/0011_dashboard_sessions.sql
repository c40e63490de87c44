-- Dashboard sessions (docs/keys-and-permissions.md): the cookie's value is stored only as its SHA-256. A
-- session signed in with an API key carries that key's permissions and ends with it; one signed
-- in with a sign-in link (key_id NULL) has full access. Times are epoch ms.
CREATE TABLE sessions (
  id_hash      TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  key_id       TEXT REFERENCES api_tokens (id),
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL, -- refreshed at most once a minute: the 12-hour idle limit counts from it
  expires_at   INTEGER NOT NULL, -- absolute: 7 days after created_at
  revoked_at   INTEGER           -- signed out
);
-- Purging ended sessions by their absolute expiry.
CREATE INDEX sessions_expiry ON sessions (expires_at);
-- And old sign-in links (0010 gave them none).
CREATE INDEX sign_in_links_expiry ON sign_in_links (expires_at);
