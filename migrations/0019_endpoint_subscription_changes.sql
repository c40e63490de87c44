-- When an endpoint last changed what it receives (created, enabled, disabled, enabled_events):
-- the redrive (src/notifications/redrive.ts) sends a lost delivery only to endpoints that took its
-- type when it was recorded and still do. updated_at also moves for a new description, URL or
-- secret, which change nothing an endpoint is owed. Rows from before start at updated_at.
ALTER TABLE webhook_endpoints ADD COLUMN subscribed_since INTEGER;
UPDATE webhook_endpoints SET subscribed_since = updated_at;
