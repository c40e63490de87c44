-- The newest live sessions of an account, in order: signing in ends those beyond the newest 100
-- (src/db/sessions.ts), so one account cannot pile up sessions without bound.
CREATE INDEX sessions_by_account ON sessions (account_id, created_at);
