-- Notifications (docs/notifications.md): the settled status each candidate object has recorded, so the
-- sweep finds candidates whose boundary passed without their notification; the feed; webhook
-- endpoints and their delivery attempts.

-- What the candidate's object has settled (and notified) so far. Rows from before this migration
-- start as OPEN: the sweep then wakes their objects, which write what they have settled.
ALTER TABLE candidates ADD COLUMN settled_status TEXT NOT NULL DEFAULT 'OPEN'
  CHECK (settled_status IN ('OPEN', 'PENDING', 'CONFIRMED', 'FAILED'));
-- When the settled status is next due to move: the boundary after it (NULL once final).
ALTER TABLE candidates ADD COLUMN settle_due_at INTEGER
  GENERATED ALWAYS AS (iif(settled_status = 'OPEN', open_until, iif(settled_status = 'PENDING', pending_until, NULL))) VIRTUAL;
CREATE INDEX candidates_settle_due ON candidates (settle_due_at) WHERE settle_due_at IS NOT NULL;

-- The feed. seq orders it as recorded (never reused), so a reader paging with `after` sees each
-- notification once; id is the notification's stable id, and a repeated write of it is ignored.
CREATE TABLE notifications (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT NOT NULL UNIQUE,
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  type            TEXT NOT NULL,
  candidate_alias TEXT NOT NULL,
  recorded_at     INTEGER NOT NULL, -- epoch ms it reached the feed; kept 30 days from then
  payload         TEXT NOT NULL     -- the notification JSON, as delivered
);
CREATE INDEX notifications_by_account ON notifications (account_id, seq);
CREATE INDEX notifications_by_type ON notifications (account_id, type, seq);
CREATE INDEX notifications_by_alias ON notifications (account_id, candidate_alias, seq);
CREATE INDEX notifications_by_age ON notifications (recorded_at);

CREATE TABLE webhook_endpoints (
  id                 TEXT PRIMARY KEY, -- UUIDv7: newest first is id order
  account_id         TEXT NOT NULL REFERENCES accounts (id),
  url                TEXT NOT NULL,
  description        TEXT,
  enabled_events     TEXT NOT NULL,    -- JSON array of notification types
  status             TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
  secret             TEXT NOT NULL,
  previous_secret    TEXT,             -- still signs until previous_expires_at (rotation overlap)
  previous_expires_at INTEGER,
  failing_since      INTEGER,          -- first failed attempt since the last success
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account_id, id);

-- One row per delivery attempt. A delivery (one notification to one endpoint) is retried on the
-- schedule; its attempts share delivery_id.
CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY, -- UUIDv7 of the attempt: newest first is id order
  delivery_id     TEXT NOT NULL,
  endpoint_id     TEXT NOT NULL,
  account_id      TEXT NOT NULL,
  notification_id TEXT NOT NULL,
  type            TEXT NOT NULL,
  attempt         INTEGER NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  response_status INTEGER,
  error           TEXT,
  duration_ms     INTEGER,
  attempted_at    INTEGER NOT NULL,
  next_attempt_at INTEGER
);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_by_delivery ON webhook_deliveries (delivery_id, attempt);
CREATE INDEX webhook_deliveries_by_age ON webhook_deliveries (attempted_at);
