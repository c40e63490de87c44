-- Billing reads, the list's filters and the summary (docs/billing.md): exact at the request's instant, and
-- every query an index search bounded by what it returns or counts.
--
-- A candidate's status at instant t is its settled status (what its object has recorded) unless
-- its boundary has passed since (settle_due_at <= t): "lagging", a few rows the sweep catches up
-- within a minute. Queries take the settled status from indexes for the rest, and compute the
-- status of lagging rows; the summary adds per-status totals kept by triggers.

-- When the settled status began (its status_since), from the timeline.
ALTER TABLE candidates ADD COLUMN settled_since INTEGER
  GENERATED ALWAYS AS (iif(settled_status = 'OPEN', created_at, iif(settled_status = 'PENDING', open_until, pending_until))) VIRTUAL;

-- The price, exactly: price = price_units × 10^-price_scale, read off the shortest decimal form
-- of the JSON number (src/domain/decimal.ts). Rows from before are read off their contract's text,
-- which begins with the price: {"price":<number>,...
ALTER TABLE candidates ADD COLUMN price_units INTEGER;
ALTER TABLE candidates ADD COLUMN price_scale INTEGER;
UPDATE candidates SET
  price_units = CAST(replace(iif(instr(substr(contract, 10, instr(contract, ',') - 10), 'e') > 0, substr(substr(contract, 10, instr(contract, ',') - 10), 1, instr(substr(contract, 10, instr(contract, ',') - 10), 'e') - 1), substr(contract, 10, instr(contract, ',') - 10)), '.', '') AS INTEGER),
  price_scale = iif(instr(iif(instr(substr(contract, 10, instr(contract, ',') - 10), 'e') > 0, substr(substr(contract, 10, instr(contract, ',') - 10), 1, instr(substr(contract, 10, instr(contract, ',') - 10), 'e') - 1), substr(contract, 10, instr(contract, ',') - 10)), '.') > 0, length(iif(instr(substr(contract, 10, instr(contract, ',') - 10), 'e') > 0, substr(substr(contract, 10, instr(contract, ',') - 10), 1, instr(substr(contract, 10, instr(contract, ',') - 10), 'e') - 1), substr(contract, 10, instr(contract, ',') - 10))) - instr(iif(instr(substr(contract, 10, instr(contract, ',') - 10), 'e') > 0, substr(substr(contract, 10, instr(contract, ',') - 10), 1, instr(substr(contract, 10, instr(contract, ',') - 10), 'e') - 1), substr(contract, 10, instr(contract, ',') - 10)), '.'), 0) - iif(instr(substr(contract, 10, instr(contract, ',') - 10), 'e') > 0, CAST(substr(substr(contract, 10, instr(contract, ',') - 10), instr(substr(contract, 10, instr(contract, ',') - 10), 'e') + 1) AS INTEGER), 0)
WHERE price_units IS NULL;

-- Status-filtered and status_since-ranged lists: each settled status walked newest first.
CREATE INDEX candidates_by_settled ON candidates (account_id, settled_status, id DESC, settle_due_at, settled_since);
CREATE INDEX candidates_by_customer_settled ON candidates (account_id, customer_uuid, settled_status, id DESC, settle_due_at, settled_since);
-- The lagging rows of an account.
CREATE INDEX candidates_lagging ON candidates (account_id, settle_due_at) WHERE settle_due_at IS NOT NULL;
-- Ranged summaries: what each counts, read off the index alone.
CREATE INDEX candidates_billing ON candidates
  (account_id, settled_status, settled_since, settle_due_at, final_status, price_scale, price_units);
CREATE INDEX candidates_customer_billing ON candidates
  (account_id, customer_uuid, settled_status, settled_since, settle_due_at, final_status, price_scale, price_units);

-- Per account (customer_uuid '') and per customer: how many candidates are in each settled status
-- (and scheduled outcome), and the sum of their prices per scale, split so no sum overflows.
CREATE TABLE candidate_totals (
  account_id     TEXT NOT NULL,
  customer_uuid  TEXT NOT NULL, -- '' for all of the account's customers (a customer_uuid is never empty)
  settled_status TEXT NOT NULL,
  final_status   TEXT NOT NULL,
  price_scale    INTEGER NOT NULL,
  count          INTEGER NOT NULL,
  units_hi       INTEGER NOT NULL, -- sum of price_units / 10^8
  units_lo       INTEGER NOT NULL, -- sum of price_units % 10^8
  PRIMARY KEY (account_id, customer_uuid, settled_status, final_status, price_scale)
);

INSERT INTO candidate_totals
  SELECT account_id, '', settled_status, final_status, price_scale, COUNT(*), SUM(price_units / 100000000), SUM(price_units % 100000000)
  FROM candidates GROUP BY account_id, settled_status, final_status, price_scale;
INSERT INTO candidate_totals
  SELECT account_id, customer_uuid, settled_status, final_status, price_scale, COUNT(*), SUM(price_units / 100000000), SUM(price_units % 100000000)
  FROM candidates GROUP BY account_id, customer_uuid, settled_status, final_status, price_scale;

-- The totals follow every row, in the same transaction as its write. (A missing totals row is
-- made with INSERT ... WHERE NOT EXISTS: an outer upsert would override a trigger's OR IGNORE.)
CREATE TRIGGER candidate_totals_insert AFTER INSERT ON candidates BEGIN
  INSERT INTO candidate_totals
    SELECT NEW.account_id, c.customer_uuid, NEW.settled_status, NEW.final_status, NEW.price_scale, 0, 0, 0
    FROM (SELECT '' AS customer_uuid UNION ALL SELECT NEW.customer_uuid) AS c
    WHERE NOT EXISTS (SELECT 1 FROM candidate_totals t WHERE t.account_id = NEW.account_id AND t.customer_uuid = c.customer_uuid
                        AND t.settled_status = NEW.settled_status AND t.final_status = NEW.final_status AND t.price_scale = NEW.price_scale);
  UPDATE candidate_totals SET count = count + 1,
      units_hi = units_hi + NEW.price_units / 100000000, units_lo = units_lo + NEW.price_units % 100000000
    WHERE account_id = NEW.account_id AND customer_uuid IN ('', NEW.customer_uuid) AND settled_status = NEW.settled_status
      AND final_status = NEW.final_status AND price_scale = NEW.price_scale;
END;

CREATE TRIGGER candidate_totals_update AFTER UPDATE OF settled_status, final_status ON candidates
  WHEN OLD.settled_status != NEW.settled_status OR OLD.final_status != NEW.final_status BEGIN
  UPDATE candidate_totals SET count = count - 1,
      units_hi = units_hi - OLD.price_units / 100000000, units_lo = units_lo - OLD.price_units % 100000000
    WHERE account_id = OLD.account_id AND customer_uuid IN ('', OLD.customer_uuid) AND settled_status = OLD.settled_status
      AND final_status = OLD.final_status AND price_scale = OLD.price_scale;
  INSERT INTO candidate_totals
    SELECT NEW.account_id, c.customer_uuid, NEW.settled_status, NEW.final_status, NEW.price_scale, 0, 0, 0
    FROM (SELECT '' AS customer_uuid UNION ALL SELECT NEW.customer_uuid) AS c
    WHERE NOT EXISTS (SELECT 1 FROM candidate_totals t WHERE t.account_id = NEW.account_id AND t.customer_uuid = c.customer_uuid
                        AND t.settled_status = NEW.settled_status AND t.final_status = NEW.final_status AND t.price_scale = NEW.price_scale);
  UPDATE candidate_totals SET count = count + 1,
      units_hi = units_hi + NEW.price_units / 100000000, units_lo = units_lo + NEW.price_units % 100000000
    WHERE account_id = NEW.account_id AND customer_uuid IN ('', NEW.customer_uuid) AND settled_status = NEW.settled_status
      AND final_status = NEW.final_status AND price_scale = NEW.price_scale;
END;
