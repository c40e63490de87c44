/**
 * A candidate object's SQLite storage: every statement run against its tables (their schema and
 * its versions: schema.ts). The object (object.ts) decides what to write and when; this module is
 * how.
 */
import type { JsonText } from "../domain/json";
import type { Status } from "../domain/timeline";
import type { NotificationType } from "../notifications/notification";
import { EVENT_JSON_SQL } from "./record";
import type { EventView } from "../models";
import { createCurrentTables, migrate, schemaVersion, SCHEMA_VERSION } from "./schema";

// Types, not interfaces: SQL rows need the implicit index signature of a type literal.
export type CandidateRow = {
  record: string;
  satisfied_mask: number;
  settled_status: Status;
  settled_since: number;
  indexed_version: number;
  /** Null in rows stored before migration 3, or written by code from before it. */
  index_bookmark: string | null;
};

/** The candidate row as loaded: with its event count and how many notifications wait in the outbox. */
export type StoredCandidateRow = CandidateRow & { event_count: number; unflushed: number };

const STORED_CANDIDATE_COLUMNS = `candidate.*, (SELECT COALESCE(MAX(seq), 0) FROM events) AS event_count,
  (SELECT COUNT(*) FROM outbox WHERE flushed = 0) AS unflushed`;

export type ProgressRow = {
  leaf: number;
  event_id: string | null;
  satisfied_at: number | null;
};

/** A recorded event that satisfied some leaf, as stored (its value as JSON text, or null). */
export type MatchedEventRow = {
  id: string;
  type: string;
  value: string | null;
  received_at: number;
};

export type OutboxRow = {
  id: string;
  type: NotificationType;
  payload: string;
};

export class CandidateStore {
  private readonly sql: SqlStorage;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
  }

  /**
   * The stored candidate with its event count and whether notifications wait in the outbox, or
   * undefined when there is none. Tables are created with the candidate, never before (an object
   * asked about an alias that has no candidate must store nothing); an object made by an earlier
   * version of this code gets the migrations it lacks here, in one transaction. The tables are
   * looked up before the candidate is read: a statement naming a table that does not exist throws,
   * and on a new candidate's object (every create asks) that failure cost more than the look.
   */
  candidate(): StoredCandidateRow | undefined {
    const version = schemaVersion(this.sql);
    if (version === null) return undefined;
    if (version < SCHEMA_VERSION) this.storage.transactionSync(() => migrate(this.sql, version));
    return this.sql.exec<StoredCandidateRow>(`SELECT ${STORED_CANDIDATE_COLUMNS} FROM candidate`).toArray()[0];
  }

  /** Creates the tables, at the current version, for a new candidate. */
  createTables() {
    createCurrentTables(this.sql);
  }

  writeCandidate(row: CandidateRow) {
    this.sql.exec(
      `INSERT OR REPLACE INTO candidate (singleton, record, satisfied_mask, settled_status, settled_since, indexed_version, index_bookmark)
       VALUES (1, ?, ?, ?, ?, ?, ?)`,
      row.record,
      row.satisfied_mask,
      row.settled_status,
      row.settled_since,
      row.indexed_version,
      row.index_bookmark,
    );
  }

  /** Inserts an event; its JSON as the API shows it (EVENT_JSON_SQL). */
  insertEvent(
    id: string,
    type: string,
    valueJson: string | null,
    receivedAt: number,
    matched: boolean,
  ): JsonText<EventView> {
    return this.sql
      .exec<{ event: JsonText<EventView> }>(
        `INSERT INTO events (id, type, value, received_at, matched) VALUES (?, ?, ?, ?, ?) RETURNING ${EVENT_JSON_SQL} AS event`,
        id,
        type,
        valueJson,
        receivedAt,
        matched ? 1 : 0,
      )
      .one().event;
  }

  /** Records the event that satisfied these leaves first (a leaf already recorded keeps its own). */
  recordProgress(leaves: number[], eventId: string | null, at: number | null) {
    for (const leaf of leaves) {
      this.sql.exec(
        `INSERT OR IGNORE INTO condition_progress (leaf, event_id, satisfied_at) VALUES (?, ?, ?)`,
        leaf,
        eventId,
        at,
      );
    }
  }

  progress(): ProgressRow[] {
    return this.sql
      .exec<ProgressRow>(`SELECT leaf, event_id, satisfied_at FROM condition_progress ORDER BY leaf`)
      .toArray();
  }

  /** The events that satisfied some leaf, oldest first: lazily, as a caller may stop early. */
  matchedEvents(): Iterable<MatchedEventRow> {
    return this.sql.exec<MatchedEventRow>(
      `SELECT id, type, value, received_at FROM events WHERE matched = 1 ORDER BY seq`,
    );
  }

  /** Every event as the API shows it, oldest first, one row each. */
  eventsJson(): JsonText<EventView>[] {
    // One row per event, joined by the caller: concatenated in SQL, 1,000 events of 8 KiB would
    // make one value over the 2 MB that Cloudflare allows a SQLite string.
    return Array.from(
      this.sql.exec(`SELECT ${EVENT_JSON_SQL} FROM events ORDER BY seq`).raw(),
      ([event]) => event as JsonText<EventView>,
    );
  }

  /** The result stored under an idempotency key since `after`, with what it answered. */
  keyedResult(accountId: string, key: string, after: number): { fingerprint: string; result: string } | undefined {
    return this.sql
      .exec<{ fingerprint: string; result: string }>(
        `SELECT fingerprint, result FROM requests WHERE account_id = ? AND key = ? AND created_at > ?`,
        accountId,
        key,
        after,
      )
      .toArray()[0];
  }

  rememberKey(accountId: string, key: string, fingerprint: string, at: number, result: unknown) {
    this.sql.exec(
      `INSERT OR REPLACE INTO requests (account_id, key, fingerprint, created_at, result) VALUES (?, ?, ?, ?, ?)`,
      accountId,
      key,
      fingerprint,
      at,
      JSON.stringify(result),
    );
  }

  /** Records a notification once: a second write of the same id changes nothing. */
  recordNotification(row: OutboxRow) {
    this.sql.exec(`INSERT OR IGNORE INTO outbox (id, type, payload) VALUES (?, ?, ?)`, row.id, row.type, row.payload);
  }

  unflushedNotifications(): OutboxRow[] {
    return this.sql.exec<OutboxRow>(`SELECT id, type, payload FROM outbox WHERE flushed = 0 ORDER BY rowid`).toArray();
  }

  markFlushed(ids: string[]) {
    for (const id of ids) this.sql.exec(`UPDATE outbox SET flushed = 1 WHERE id = ?`, id);
  }
}

/** A record as it comes back from storage: JSON has no Infinity, -0 or `undefined`. */
export const asStored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
