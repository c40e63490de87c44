-- The candidate list's `candidate_alias_prefix` filter (the dashboard's search by alias): the
-- account's aliases in order, so a prefix is one range scan of the candidates it matches.
CREATE INDEX candidates_by_alias ON candidates (account_id, alias);
