-- A key rolled once is replaced: the id of the key that replaced it. A replaced key keeps working
-- until its new expiry, but cannot be rolled again, so two rolls of one key (at once, or one after
-- another within the overlap) never leave two successors.
ALTER TABLE api_tokens ADD COLUMN replaced_by TEXT;
