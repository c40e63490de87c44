-- The list's activity_ends_gte / activity_ends_lt filters (src/db/candidates.ts): an account's
-- candidates by when their activity window ends (open_until: the fulfilment instant once
-- fulfilled), so "OPEN candidates about to time out" is one range, whatever the account holds.
CREATE INDEX candidates_by_activity_end ON candidates (account_id, open_until);
