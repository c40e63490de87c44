-- The URL each delivery attempt was sent to: an endpoint's URL can change, and its log keeps the
-- attempts made before. NULL for attempts recorded before this column, and for a delivery that
-- could not be handed to its endpoint (never sent).
ALTER TABLE webhook_deliveries ADD COLUMN url TEXT;
