-- An optional name for each schema (1-100 characters, checked by the Worker). Schemas from before
-- this have none: NULL. The list pages on schemas_by_account, unchanged.
ALTER TABLE schemas ADD COLUMN name TEXT;
