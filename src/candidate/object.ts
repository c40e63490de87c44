/**
 * CandidateObject: one SQLite-backed Durable Object per candidate alias, the source of truth for
 * that candidate. Naming the object by the alias makes alias uniqueness global, and its input
 * gate serialises concurrent creates and events. Each change is one storage transaction, made
 * before any other I/O, so concurrent requests always see a consistent candidate.
 *
 * The D1 list index is written before answering (so lists read their own writes); if that write
 * fails, the alarm retries it until the index has caught up (`indexed_version`).
 */
import { DurableObject } from "cloudflare:workers";
import { uuidv7 } from "uuidv7";
import { applyEvent, compileCondition, type CompiledCondition, type SubmittedEvent } from "../domain/condition";
import type { Contract } from "../domain/contract";
import {
  fulfilledAt,
  nextBoundary,
  resolvedAt,
  statusAt,
  timelineAtCreation,
  type FinalStatus,
  type Status,
} from "../domain/timeline";
import { upsertCandidateIndex } from "../db/candidates";
import { IDEMPOTENCY_KEEP_MS, type IdempotentRequest } from "../idempotency";
import {
  candidateJson,
  candidateWithEventsJson,
  contractJson,
  EVENT_JSON_SQL,
  recordedEventJson,
  type CandidateRecord,
  type CandidateView,
  type CandidateWithEvents,
  type EventView,
} from "./record";
import type { JsonText } from "../domain/json";

export const MAX_EVENTS_PER_CANDIDATE = 1000;
/** How soon the alarm retries a failed write to the D1 index. */
const INDEX_RETRY_MS = 2000;

interface StoredState {
  record: CandidateRecord;
  condition: CompiledCondition;
  /** The contract as JSON text, for responses (it never changes). */
  contractJson: JsonText<Contract>;
  /** Leaves satisfied so far (bit i = leaf i). */
  satisfiedMask: number;
  /** Events recorded: the highest `seq`, as events are never deleted. */
  eventCount: number;
  /** The status the stored state has caught up to; alarms advance it at each window end. */
  settledStatus: Status;
  settledSince: number;
  /** Highest record version known to be in the D1 index. */
  indexedVersion: number;
}

type CandidateRow = {
  record: string;
  satisfied_mask: number;
  settled_status: Status;
  settled_since: number;
  indexed_version: number;
};

export interface NewCandidate {
  accountId: string;
  alias: string;
  customerUuid: string;
  schemaId: string | null;
  contract: Contract;
}

type Failure<C extends string> = { ok: false; code: C };
/** Success: the response body, serialised once, here. */
type Answer<T> = { ok: true; body: JsonText<T> };

/**
 * The object's RPC surface. Declared by hand because the runtime's generated stub type cannot
 * expand the recursive contract type; the class below is checked against it.
 */
export interface CandidateRpc {
  create(
    input: NewCandidate,
    request?: IdempotentRequest,
  ): Promise<Answer<CandidateView> | Failure<"CANDIDATE_ALIAS_TAKEN" | KeyReused>>;
  get(accountId: string): Promise<Answer<CandidateWithEvents> | Failure<"CANDIDATE_NOT_FOUND">>;
  recordEvent(
    accountId: string,
    event: SubmittedEvent,
    request?: IdempotentRequest,
  ): Promise<EventResult | Failure<"CANDIDATE_NOT_FOUND" | KeyReused>>;
  /** Several events, in order, in one transaction: one result per item (a batch's share). */
  recordEvents(
    accountId: string,
    items: EventItem[],
    request?: IdempotentRequest,
  ): Promise<{ ok: true; results: EventResult[] } | Failure<"CANDIDATE_NOT_FOUND" | KeyReused>>;
  resolve(
    accountId: string,
    outcome: FinalStatus,
    request?: IdempotentRequest,
  ): Promise<Answer<CandidateView> | Failure<"CANDIDATE_NOT_FOUND" | "INVALID_STATE" | KeyReused>>;
}
type KeyReused = "IDEMPOTENCY_KEY_REUSED";

export type RecordedEvent = { event: EventView; candidate: CandidateView };
/** One event's outcome: recorded (or replayed), or refused with nothing recorded. */
export type EventResult = Answer<RecordedEvent> | Failure<"EVENT_LIMIT_REACHED" | KeyReused>;

/** An event of a batch, with its own Idempotency key (decisions.md §4 "Batches"). */
export interface EventItem {
  event: SubmittedEvent;
  /** The item's `idempotency_key` and a fingerprint of what it asks (its type and value). */
  key?: { key: string; fingerprint: string };
}

/**
 * Item keys share the `requests` table with Idempotency-Key headers. An HTTP header cannot hold
 * NUL, so this prefix keeps the two apart whatever the keys are.
 */
const ITEM_KEY_PREFIX = "\u0000item\u0000";

/** What one item of a batch will do, decided before anything is written. */
type ItemPlan =
  | { kind: "done"; result: EventResult }
  | { kind: "same-as"; index: number }
  | { kind: "record"; event: SubmittedEvent; matched: boolean; after: StoredState };

export class CandidateObject extends DurableObject<Env> implements CandidateRpc {
  /** In-memory copy of the stored candidate: undefined until loaded, null when none exists. */
  private state: StoredState | null | undefined;
  /** The alarm time this instance last set (undefined: unknown, so the next save sets it). */
  private armedAt: number | null | undefined;

  /**
   * Tables are created with the candidate, never before: an object asked about an alias that has
   * no candidate (a read, an event, a resolve) must store nothing.
   */
  private createTables() {
    this.ctx.storage.sql.exec(TABLES);
  }

  private hasTables(): boolean {
    return this.ctx.storage.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'candidate'`).toArray().length > 0;
  }

  async create(input: NewCandidate, request?: IdempotentRequest) {
    const now = Date.now();
    if (this.load()) {
      // Our own earlier create, retried after its answer was lost, gets that answer again.
      const earlier = this.replay<Awaited<ReturnType<CandidateRpc["create"]>>>(input.accountId, request);
      return earlier ?? ({ ok: false, code: "CANDIDATE_ALIAS_TAKEN" } as const);
    }
    // Built from exactly what storage will give back, so the condition compiled now is the one
    // compiled after an eviction.
    const record = asStored<CandidateRecord>({
      id: uuidv7(),
      ...input,
      timeline: timelineAtCreation(input.contract, now),
      version: 1,
    });
    const state = stateOf(record, { satisfiedMask: 0, eventCount: 0, settledStatus: "OPEN", settledSince: now, indexedVersion: 0 });
    const result = { ok: true, body: candidateJson(record, state.contractJson, now) } as const;
    this.ctx.storage.transactionSync(() => {
      this.createTables();
      this.save(state, now);
      this.remember(input.accountId, request, result);
    });
    await this.syncIndex();
    return result;
  }

  async get(accountId: string) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return { ok: false, code: "CANDIDATE_NOT_FOUND" } as const;
    // One row per event, joined here: concatenated in SQL, 1,000 events of 8 KiB would make one
    // value over the 2 MB that Cloudflare allows a SQLite string.
    const rows = this.ctx.storage.sql.exec(`SELECT ${EVENT_JSON_SQL} FROM events ORDER BY seq`).raw();
    const events = Array.from(rows, ([event]) => event as JsonText<EventView>);
    return { ok: true, body: candidateWithEventsJson(candidateJson(state.record, state.contractJson, now), events) } as const;
  }

  async recordEvent(accountId: string, event: SubmittedEvent, request?: IdempotentRequest) {
    const outcome = await this.recordEvents(accountId, [{ event }], request);
    return outcome.ok ? outcome.results[0] : outcome;
  }

  /**
   * Applies the items in order, as if sent one after the other: each sees the candidate the one
   * before left. Planned first (reads only), then written in one transaction.
   */
  async recordEvents(accountId: string, items: EventItem[], request?: IdempotentRequest) {
    type Outcome = Awaited<ReturnType<CandidateRpc["recordEvents"]>>;
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return { ok: false, code: "CANDIDATE_NOT_FOUND" } as const;
    const earlier = this.replay<Outcome>(accountId, request);
    if (earlier) return earlier;

    const { plans, final } = this.plan(accountId, state, items, now);
    const write = () => {
      const results: EventResult[] = [];
      for (const [i, plan] of plans.entries()) {
        if (plan.kind === "done") results.push(plan.result);
        else if (plan.kind === "same-as") results.push(results[plan.index]);
        else {
          results.push(this.insertEvent(plan, now));
          const key = items[i].key;
          if (key) this.rememberKey(accountId, ITEM_KEY_PREFIX + key.key, key.fingerprint, now, results[i]);
        }
      }
      // Most events change nothing but the event log: the candidate row is rewritten only when
      // the condition's progress or the timeline moved.
      if (final.satisfiedMask !== state.satisfiedMask || final.record !== state.record) this.save(final, now);
      else this.state = final;
      const outcome = { ok: true, results } as const;
      this.remember(accountId, request, outcome);
      return outcome;
    };
    // A lone insert is atomic by itself; only several writes need the transaction around them.
    const lone = plans.length === 1 && !request && !items[0].key && final.satisfiedMask === state.satisfiedMask && final.record === state.record;
    const outcome = lone ? write() : this.ctx.storage.transactionSync(write);
    if (final.record !== state.record) await this.syncIndex();
    return outcome;
  }

  /** What each item will do, and the state after them all. Reads storage, writes nothing. */
  private plan(accountId: string, state: StoredState, items: EventItem[], now: number) {
    const plans: ItemPlan[] = [];
    const keysSeen = new Map<string, { fingerprint: string; index: number }>();
    let current = state;
    for (const [index, { event, key }] of items.entries()) {
      if (key) {
        const seen = keysSeen.get(key.key);
        if (seen) {
          plans.push(seen.fingerprint === key.fingerprint ? { kind: "same-as", index: seen.index } : { kind: "done", result: KEY_REUSED });
          continue;
        }
        const stored = this.storedResult<EventResult>(accountId, ITEM_KEY_PREFIX + key.key, key.fingerprint, now - IDEMPOTENCY_KEEP_MS);
        if (stored) {
          plans.push({ kind: "done", result: stored });
          if (stored.ok) keysSeen.set(key.key, { fingerprint: key.fingerprint, index });
          continue;
        }
      }
      if (current.eventCount >= MAX_EVENTS_PER_CANDIDATE) {
        plans.push({ kind: "done", result: { ok: false, code: "EVENT_LIMIT_REACHED" } });
        continue;
      }
      const step = afterEvent(current, event, now);
      plans.push({ kind: "record", event, ...step });
      current = step.after;
      if (key) keysSeen.set(key.key, { fingerprint: key.fingerprint, index });
    }
    return { plans, final: current };
  }

  /** Inserts a planned event; the answer as the API shows it (the candidate right after it). */
  private insertEvent(plan: Extract<ItemPlan, { kind: "record" }>, now: number): EventResult {
    const { event: recorded } = this.ctx.storage.sql
      .exec<{ event: JsonText<EventView> }>(
        `INSERT INTO events (id, type, value, received_at, matched) VALUES (?, ?, ?, ?, ?)
         RETURNING ${EVENT_JSON_SQL} AS event`,
        uuidv7(),
        plan.event.type,
        plan.event.hasValue ? JSON.stringify(plan.event.value) : null,
        now,
        plan.matched ? 1 : 0,
      )
      .one();
    return { ok: true, body: recordedEventJson(recorded, candidateJson(plan.after.record, plan.after.contractJson, now)) };
  }

  /** Ends the review window early with the caller's outcome (decisions.md §3, extension). */
  async resolve(accountId: string, outcome: FinalStatus, request?: IdempotentRequest) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return { ok: false, code: "CANDIDATE_NOT_FOUND" } as const;
    const earlier = this.replay<Awaited<ReturnType<CandidateRpc["resolve"]>>>(accountId, request);
    if (earlier) return earlier;
    const { status } = statusAt(state.record.timeline, now);
    if (status !== "PENDING") {
      return { ok: false, code: "INVALID_STATE" } as const;
    }
    const record = {
      ...state.record,
      timeline: resolvedAt(state.record.timeline, outcome, now),
      version: state.record.version + 1,
    };
    const result = { ok: true, body: candidateJson(record, state.contractJson, now) } as const;
    this.ctx.storage.transactionSync(() => {
      this.save({ ...state, record }, now);
      this.remember(accountId, request, result);
    });
    await this.syncIndex();
    return result;
  }

  /**
   * Window ends: persist the status the timeline already decided, and retry an index write that
   * failed. Idempotent, since alarms are at-least-once and may fire late, early or twice.
   */
  async alarm() {
    this.armedAt = undefined; // this alarm is spent: save() must arm the next one
    const state = this.load();
    if (!state) return;
    const now = Date.now();
    this.save(state, now);
    await this.syncIndex();
  }

  /**
   * The stored result of a change this object already made for the same Idempotency-Key (see
   * idempotency.ts), so a retry after a lost response never applies the change twice.
   */
  private replay<T>(accountId: string, request: IdempotentRequest | undefined): T | Failure<KeyReused> | undefined {
    if (!request) return undefined;
    return this.storedResult<T>(accountId, request.key, request.fingerprint, request.claimedAt - IDEMPOTENCY_KEEP_MS);
  }

  /** The result stored under a key since `after`; 409 when it was for another request; else undefined. */
  private storedResult<T>(accountId: string, key: string, fingerprint: string, after: number): T | Failure<KeyReused> | undefined {
    const row = this.ctx.storage.sql
      .exec<{ fingerprint: string; result: string }>(
        `SELECT fingerprint, result FROM requests WHERE account_id = ? AND key = ? AND created_at > ?`,
        accountId,
        key,
        after,
      )
      .toArray()[0];
    if (!row) return undefined;
    if (row.fingerprint !== fingerprint) return KEY_REUSED;
    return JSON.parse(row.result) as T;
  }

  /**
   * Records a change's result under its Idempotency-Key, dated by the key's D1 claim (see
   * IdempotentRequest.claimedAt); call inside the change's transaction.
   */
  private remember(accountId: string, request: IdempotentRequest | undefined, result: unknown) {
    if (request) this.rememberKey(accountId, request.key, request.fingerprint, request.claimedAt, result);
  }

  private rememberKey(accountId: string, key: string, fingerprint: string, at: number, result: unknown) {
    this.ctx.storage.sql.exec(
      `INSERT OR REPLACE INTO requests (account_id, key, fingerprint, created_at, result) VALUES (?, ?, ?, ?, ?)`,
      accountId,
      key,
      fingerprint,
      at,
      JSON.stringify(result),
    );
  }

  /** The candidate if it exists and belongs to `accountId`; another account's is as absent. */
  private owned(accountId: string): StoredState | null {
    const state = this.load();
    return state && state.record.accountId === accountId ? state : null;
  }

  private load(): StoredState | null {
    if (this.state !== undefined) return this.state;
    if (!this.hasTables()) return (this.state = null);
    this.createTables(); // tables added since this object was created; a no-op when all exist
    const row = this.ctx.storage.sql.exec<CandidateRow>(`SELECT * FROM candidate`).toArray()[0];
    if (!row) return (this.state = null);
    this.state = stateOf(JSON.parse(row.record) as CandidateRecord, {
      satisfiedMask: row.satisfied_mask,
      eventCount: this.ctx.storage.sql.exec<{ n: number }>(`SELECT COALESCE(MAX(seq), 0) AS n FROM events`).one().n,
      settledStatus: row.settled_status,
      settledSince: row.settled_since,
      indexedVersion: row.indexed_version,
    });
    return this.state;
  }

  /**
   * Stores the candidate, catching its settled status up to instant `now` (the status changes a
   * request or an alarm makes are persisted at their exact boundary instant), and arms the alarm
   * in the same atomic write, so a due window end or index retry is never lost to an eviction.
   */
  private save(state: StoredState, now: number) {
    const next: StoredState = { ...state, ...settledAt(state, now) };
    this.ctx.storage.sql.exec(
      `INSERT OR REPLACE INTO candidate
         (singleton, record, satisfied_mask, settled_status, settled_since, indexed_version)
       VALUES (1, ?, ?, ?, ?, ?)`,
      JSON.stringify(next.record),
      next.satisfiedMask,
      next.settledStatus,
      next.settledSince,
      next.indexedVersion,
    );
    // Not awaited on purpose: queued with the write above, and the output gate holds the response
    // until both are durable.
    const due = nextAlarm(next, now);
    if (due !== this.armedAt) {
      if (due === null) void this.ctx.storage.deleteAlarm();
      else void this.ctx.storage.setAlarm(due);
      this.armedAt = due;
    }
    this.state = next;
  }

  /** Brings the D1 index up to the current version; on failure the armed alarm retries. */
  private async syncIndex() {
    const { record, indexedVersion } = this.load()!;
    if (indexedVersion >= record.version) return;
    try {
      await upsertCandidateIndex(this.env.DB, record);
    } catch (error) {
      console.error(`candidate ${record.id}: index write failed; the alarm retries it`, error);
      return;
    }
    // Other requests and the alarm may have run during the await: save what is current now.
    const current = this.load()!;
    if (current.indexedVersion < record.version) this.save({ ...current, indexedVersion: record.version }, Date.now());
  }
}

const TABLES = `
  CREATE TABLE IF NOT EXISTS candidate (
    singleton       INTEGER PRIMARY KEY CHECK (singleton = 1),
    record          TEXT NOT NULL,
    satisfied_mask  INTEGER NOT NULL,
    settled_status  TEXT NOT NULL,
    settled_since   INTEGER NOT NULL,
    indexed_version INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS events (
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL,
    type        TEXT NOT NULL,
    value       TEXT,
    received_at INTEGER NOT NULL,
    matched     INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS requests (
    account_id  TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at  INTEGER NOT NULL, -- the key's D1 claim instant
    result      TEXT NOT NULL,
    PRIMARY KEY (account_id, key)
  );`;

/** A value as it comes back from storage: JSON has no Infinity, -0 or `undefined`. */
const asStored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The in-memory state of a stored record; the condition is compiled from the stored contract. */
function stateOf(record: CandidateRecord, stored: Omit<StoredState, "record" | "condition" | "contractJson">): StoredState {
  return {
    record,
    condition: compileCondition(record.contract.fulfillment_condition),
    contractJson: contractJson(record.contract),
    ...stored,
  };
}

const STATUS_RANK: Record<Status, number> = { OPEN: 0, PENDING: 1, CONFIRMED: 2, FAILED: 2 };

/**
 * The settled status at `now`: the status the timeline gives, unless the stored one is already
 * further along. It only ever moves forward, whoever saves and with whatever instant: a request
 * that saves after an await must not write back a window end the alarm persisted meanwhile.
 */
function settledAt(state: StoredState, now: number): Pick<StoredState, "settledStatus" | "settledSince"> {
  const reached = statusAt(state.record.timeline, now);
  if (STATUS_RANK[reached.status] > STATUS_RANK[state.settledStatus]) {
    return { settledStatus: reached.status, settledSince: reached.since };
  }
  return { settledStatus: state.settledStatus, settledSince: state.settledSince };
}

const KEY_REUSED = { ok: false, code: "IDEMPOTENCY_KEY_REUSED" } as const;

/** The state after one more event at `now`, and whether the event satisfied a leaf. Pure. */
function afterEvent(state: StoredState, event: SubmittedEvent, now: number): { after: StoredState; matched: boolean } {
  let { record, satisfiedMask } = state;
  let matched = false;
  if (now < record.timeline.openUntil) {
    const progress = applyEvent(state.condition, satisfiedMask, event);
    satisfiedMask = progress.mask;
    matched = progress.matched;
    if (progress.fulfilled) {
      record = { ...record, timeline: fulfilledAt(record.timeline, record.contract, now), version: record.version + 1 };
    }
  }
  return { after: { ...state, record, satisfiedMask, eventCount: state.eventCount + 1 }, matched };
}

/** The earliest of: the next window end, a retry of an index write not yet confirmed. */
function nextAlarm(state: StoredState, now: number): number | null {
  const boundary = nextBoundary(state.record.timeline, now);
  if (state.indexedVersion >= state.record.version) return boundary;
  return Math.min(boundary ?? Infinity, now + INDEX_RETRY_MS);
}
