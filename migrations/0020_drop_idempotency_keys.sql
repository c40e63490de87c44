-- The Idempotency-Key table of before 0014. Nothing has read or written it since 0014 moved the
-- keys to Durable Objects (its successes were copied into idempotent_changes then), and no Worker
-- of before 0014 runs any more, so the table, and its index with it, goes.
DROP TABLE IF EXISTS idempotency_keys;
