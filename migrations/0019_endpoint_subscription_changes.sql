-- Since when an endpoint has taken each notification type it takes now, as JSON
-- {"candidate.pending": <epoch ms>, ...}: set at creation, for a type added to enabled_events, and
-- for every type when the endpoint is enabled again. The redrive (src/notifications/redrive.ts)
-- sends a lost delivery only to endpoints that took its type when it was recorded and still do.
-- updated_at also moves for a new description, URL or secret, and for a PATCH that changes nothing,
-- none of which changes what an endpoint is owed. Rows from before start at updated_at.
ALTER TABLE webhook_endpoints ADD COLUMN subscribed_since TEXT;
UPDATE webhook_endpoints SET subscribed_since = (SELECT json_group_object(value, updated_at) FROM json_each(enabled_events));
