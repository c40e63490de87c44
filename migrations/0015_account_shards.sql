-- Which database holds each account's data (docs/scale.md): the binding of its shard,
-- SHARD_0 .. SHARD_{N-1}, chosen when the account is made. Accounts made before have theirs on the
-- primary (DB), and so does an account a Worker of before makes while a deploy rolls out.
-- Every database takes this migration; in a shard, the account rows are the anchors of its
-- foreign keys (copied there when the account is made), and this column says the same.
ALTER TABLE accounts ADD COLUMN shard TEXT NOT NULL DEFAULT 'DB';
-- Placing an account counts the accounts of each shard.
CREATE INDEX accounts_by_shard ON accounts (shard);
