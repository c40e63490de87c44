-- The delivery log a person can follow (docs/notifications.md).
--
-- 1. An attempt's status is what that attempt got: `pending` now means not answered yet. Until
--    now it meant "failed, and retried at next_attempt_at": those attempts failed.
UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending' AND next_attempt_at IS NOT NULL;

-- 2. The log's `notification_id` and `status` filters, each a range scan in page order (newest
--    first), like the unfiltered log's webhook_deliveries_by_endpoint.
CREATE INDEX webhook_deliveries_by_notification ON webhook_deliveries (endpoint_id, notification_id, id);
CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (endpoint_id, status, id);
