-- Candidate metadata (the account's key-value strings) on the list index, and a lookup table
-- that makes `metadata[KEY]=VALUE` filters an index walk: newest first within one key and value,
-- so a filtered page costs what a plain page costs. Triggers keep the lookup equal to the
-- column, whichever statement writes it.
ALTER TABLE candidates ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';

CREATE TABLE candidate_metadata (
  account_id   TEXT NOT NULL,
  key          TEXT NOT NULL,
  value        TEXT NOT NULL,
  candidate_id TEXT NOT NULL,
  PRIMARY KEY (account_id, key, value, candidate_id)
) WITHOUT ROWID;
CREATE INDEX candidate_metadata_by_candidate ON candidate_metadata (candidate_id);

CREATE TRIGGER candidate_metadata_insert AFTER INSERT ON candidates WHEN NEW.metadata != '{}' BEGIN
  INSERT OR IGNORE INTO candidate_metadata SELECT NEW.account_id, key, value, NEW.id FROM json_each(NEW.metadata);
END;

CREATE TRIGGER candidate_metadata_update AFTER UPDATE OF metadata ON candidates WHEN OLD.metadata != NEW.metadata BEGIN
  DELETE FROM candidate_metadata WHERE candidate_id = OLD.id;
  INSERT OR IGNORE INTO candidate_metadata SELECT NEW.account_id, key, value, NEW.id FROM json_each(NEW.metadata);
END;
