-- A status filter is computed from open_until, pending_until and final_status. With them in the
-- list indexes, SQLite tests each candidate a filtered page skips on the index entry alone and
-- reads full rows only for the candidates it returns.
DROP INDEX candidates_by_account;
CREATE INDEX candidates_by_account ON candidates (account_id, id DESC, open_until, pending_until, final_status);
DROP INDEX candidates_by_customer;
CREATE INDEX candidates_by_customer ON candidates (account_id, customer_uuid, id DESC, open_until, pending_until, final_status);
