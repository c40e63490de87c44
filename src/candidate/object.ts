/**
 * CandidateObject: one SQLite-backed Durable Object per candidate alias, the source of truth for
 * that candidate. Naming the object by the alias makes alias uniqueness global, and its input
 * gate serialises concurrent creates and events. Each change is one storage transaction, made
 * before any other I/O, so concurrent requests always see a consistent candidate.
 *
 * Every status the candidate enters is recorded as a notification in the same transaction as the
 * change that causes it (an event, a resolve, or the alarm that persists a window end): an
 * outbox. Downstream copies are then brought up to date (`syncDownstream`): the D1 list index
 * and notifications feed in one D1 transaction on the account's shard, then the notifications
 * queue. If that fails, the alarm retries it; the copies may lag, never disagree, and lose
 * nothing. A call that wrote the index answers that write's D1 bookmark, which the Worker sends
 * back in its response (account-db.ts), so the client's next list reads at least that write.
 */
import { DurableObject } from "cloudflare:workers";
import { uuidv7 } from "uuidv7";
import { applyEvent, compileCondition, leafSatisfied, leavesGained, type CompiledCondition, type SubmittedEvent } from "../domain/condition";
import type { Contract } from "../domain/contract";
import type { JsonText } from "../domain/json";
import { MAX_METADATA_KEYS, mergeMetadata, type Metadata } from "../domain/metadata";
import {
  fulfilledAt,
  nextBoundary,
  resolvedAt,
  statusAt,
  timelineAtCreation,
  transitionsSince,
  type FinalStatus,
  type Status,
} from "../domain/timeline";
import { candidateIndexStatement } from "../db/candidates";
import { feedInsertStatement } from "../db/notifications";
import { IDEMPOTENCY_KEEP_MS, type IdempotentRequest } from "../idempotency";
import { causeOf, notificationId, notificationJson, notificationType, type Cause } from "../notifications/notification";
import type { NotificationMessage } from "../notifications/fanout";
import {
  candidateJson,
  candidateWithEventsJson,
  conditionProgress,
  contractJson,
  recordedEventJson,
  type CandidateRecord,
} from "./record";
import type { CandidateView } from "../models";
import type { Answer, CandidateRpc, EventItem, EventResult, Failure, KeyInUse, KeyReused, Keyed, NewCandidate, NotResolvable } from "./rpc";
import { asStored, CandidateStore, recordOf, type OutboxRow } from "./storage";
import { shardDb, shardNamed } from "../shards";
import { bookmarkOn } from "../account-db";

export const MAX_EVENTS_PER_CANDIDATE = 1000;
/** How soon the alarm retries a failed write downstream (D1 index and feed, queue). */
const DOWNSTREAM_RETRY_MS = 2000;
const MAX_DOWNSTREAM_RETRY_MS = 5 * 60_000;

interface StoredState {
  record: CandidateRecord;
  condition: CompiledCondition;
  /** The contract as JSON text, for responses (it never changes). */
  contractJson: JsonText<Contract>;
  /** Leaves satisfied so far (bit i = leaf i). */
  satisfiedMask: number;
  /** Events recorded: the highest `seq`, as events are never deleted. */
  eventCount: number;
  /** The status the stored state has caught up to, and notified; only ever moves forward. */
  settledStatus: Status;
  settledSince: number;
  /** Highest record version known to be in the D1 index. */
  indexedVersion: number;
  /** Whether notifications wait in the outbox for the feed and the queue. */
  unflushed: boolean;
}

const KEY_REUSED = { ok: false, code: "IDEMPOTENCY_KEY_REUSED" } as const;
const KEY_IN_USE = { ok: false, code: "IDEMPOTENCY_KEY_IN_USE" } as const;

/**
 * Item keys share the `requests` table with Idempotency-Key headers. An HTTP header cannot hold
 * NUL, so this prefix keeps the two apart whatever the keys are.
 */
const ITEM_KEY_PREFIX = "\u0000item\u0000";

/** Where the i-th result of a keyed request's events is kept (header keys hold no NUL). */
const itemResultKey = (key: string, i: number) => `${key}\u0000${i}`;

/** What one item of a batch will do, decided before anything is written. */
type ItemPlan =
  | { kind: "done"; result: EventResult }
  | { kind: "same-as"; index: number }
  | { kind: "record"; id: string; event: SubmittedEvent; matched: boolean; after: StoredState };

export class CandidateObject extends DurableObject<Env> implements CandidateRpc {
  private readonly store = new CandidateStore(this.ctx.storage.sql);
  /** In-memory copy of the stored candidate: undefined until loaded, null when none exists. */
  private state: StoredState | null | undefined;
  /** The alarm time this instance last set (undefined: unknown, so the next save sets it). */
  private armedAt: number | null | undefined;
  /** Downstream writes failed in a row: their retries back off (from 2 s to 5 min). */
  private downstreamFailures = 0;
  /**
   * Outbox rows a `syncDownstream` has taken to hand to the queue and not yet finished with.
   * Claimed in the same synchronous block that reads them, so a request, alarm or sweep that
   * runs while the first waits on D1 or the queue leaves them alone: one hand-off per transition.
   * Memory is enough: a claim dies with the instance that would have sent it, and the rows, still
   * unflushed in storage, are the alarm's to retry.
   */
  private readonly handingOff = new Set<string>();

  /**
   * A storage transaction. If it throws, storage rolls back, and so must memory: the state and
   * alarm this instance holds are dropped, so the next call reloads what storage kept.
   */
  private transaction<T>(change: () => T): T {
    try {
      return this.ctx.storage.transactionSync(change);
    } catch (error) {
      this.state = undefined;
      this.armedAt = undefined;
      throw error;
    }
  }

  async create(input: NewCandidate, request?: IdempotentRequest) {
    const now = Date.now();
    if (this.load()) {
      // Our own earlier create, retried after its answer was lost, gets that answer again.
      const earlier = this.replay<Answer<CandidateView>>(input.accountId, request);
      return earlier ?? ({ ok: false, code: "CANDIDATE_ALIAS_TAKEN" } as const);
    }
    if (request?.heldElsewhere) return KEY_IN_USE;
    // Built from exactly what storage will give back, so the condition compiled now is the one
    // compiled after an eviction.
    const record = asStored<CandidateRecord>({
      id: uuidv7(),
      ...input,
      metadata: mergeMetadata({}, input.metadata), // "" at creation is a key not set
      timeline: timelineAtCreation(input.contract, now),
      version: 1,
    });
    const state = stateOf(record, { satisfiedMask: 0, eventCount: 0, settledStatus: "OPEN", settledSince: now, indexedVersion: 0, unflushed: false });
    const result = { ok: true, body: candidateJson(record, state.contractJson, now) } as const;
    this.transaction(() => {
      this.store.createTables();
      this.save(state, now);
      this.remember(input.accountId, request, result);
    });
    return { ...result, bookmark: await this.syncDownstream() };
  }

  async get(accountId: string) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return { ok: false, code: "CANDIDATE_NOT_FOUND" } as const;
    const candidate = candidateJson(state.record, state.contractJson, now);
    const progress = conditionProgress(state.condition, state.satisfiedMask, this.satisfiers(state));
    return { ok: true, body: candidateWithEventsJson(candidate, progress, this.store.eventsJson()) } as const;
  }

  /**
   * The event that first satisfied each satisfied leaf. An object created before progress was
   * stored has leaves satisfied with no record of by whom: found once from its matched events.
   */
  private satisfiers(state: StoredState) {
    const found = new Map(this.store.progress().map((row) => [row.leaf, { eventId: row.event_id, at: row.satisfied_at }]));
    const missing = new Set(leavesGained(0, state.satisfiedMask).filter((leaf) => !found.has(leaf)));
    for (const row of missing.size > 0 ? this.store.matchedEvents() : []) {
      const event: SubmittedEvent = { type: row.type, value: row.value === null ? undefined : JSON.parse(row.value), hasValue: row.value !== null };
      const leaves = (state.condition.leavesByEvent.get(row.type) ?? []).filter((leaf) => missing.has(leaf) && leafSatisfied(state.condition.leaves[leaf], event));
      for (const leaf of leaves) {
        missing.delete(leaf);
        found.set(leaf, { eventId: row.id, at: row.received_at });
      }
      if (leaves.length > 0) this.store.recordProgress(leaves, row.id, row.received_at);
      if (missing.size === 0) break;
    }
    // Met by an event that no longer matches it (the rules of an earlier version): said so once.
    if (missing.size > 0) this.store.recordProgress([...missing], null, null);
    return found;
  }

  async recordEvent(accountId: string, event: SubmittedEvent, request?: IdempotentRequest) {
    const outcome = await this.recordEvents(accountId, [{ event }], request);
    return outcome.ok ? { ...outcome.results[0], bookmark: outcome.bookmark, ...(outcome.replayed ? { replayed: true as const } : {}) } : outcome;
  }

  /**
   * Applies the items in order, as if sent one after the other: each sees the candidate the one
   * before left. Planned first (reads only), then written in one transaction.
   */
  async recordEvents(accountId: string, items: EventItem[], request?: IdempotentRequest): ReturnType<CandidateRpc["recordEvents"]> {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return request?.heldElsewhere ? KEY_IN_USE : ({ ok: false, code: "CANDIDATE_NOT_FOUND" } as const);
    const earlier = this.replayResults(accountId, request);
    if (earlier) return earlier;

    const { plans, final } = this.plan(accountId, state, items, now);
    const fulfilledBy = plans.find((p) => p.kind === "record" && p.after.record !== state.record && p.after.record === final.record);
    const write = () => {
      const results: EventResult[] = [];
      let mask = state.satisfiedMask;
      for (const [i, plan] of plans.entries()) {
        if (plan.kind === "done") results.push(plan.result);
        else if (plan.kind === "same-as") results.push(results[plan.index]);
        else {
          const event = this.store.insertEvent(plan.id, plan.event.type, plan.event.hasValue ? JSON.stringify(plan.event.value) : null, now, plan.matched);
          this.store.recordProgress(leavesGained(mask, plan.after.satisfiedMask), plan.id, now);
          mask = plan.after.satisfiedMask;
          results.push({ ok: true, body: recordedEventJson(event, candidateJson(plan.after.record, plan.after.contractJson, now)) });
          const key = items[i].key;
          if (key) this.store.rememberKey(accountId, ITEM_KEY_PREFIX + key.key, key.fingerprint, now, results[i]);
        }
      }
      // Most events change nothing but the event log: the candidate row is rewritten only when
      // the condition's progress or the timeline moved.
      if (final.satisfiedMask !== state.satisfiedMask || final.record !== state.record) {
        this.save(final, now, fulfilledBy?.kind === "record" ? { kind: "event", event_id: fulfilledBy.id } : undefined);
      } else {
        this.state = final;
      }
      this.rememberResults(accountId, request, results);
      return { ok: true, results } as const;
    };
    // A lone insert is atomic by itself; only several writes need the transaction around them.
    const lone = plans.length === 1 && !request && !items[0].key && final.satisfiedMask === state.satisfiedMask && final.record === state.record;
    const outcome = lone ? write() : this.transaction(write);
    return { ...outcome, bookmark: await this.syncDownstream() };
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
      plans.push({ kind: "record", id: uuidv7(), event, ...step });
      current = step.after;
      if (key) keysSeen.set(key.key, { fingerprint: key.fingerprint, index });
    }
    return { plans, final: current };
  }

  /**
   * Makes the candidate final now with the caller's outcome (docs/lifecycle.md, "Resolve"): from
   * PENDING it ends the review early; from OPEN it voids (FAILED) or confirms without review.
   */
  async resolve(accountId: string, outcome: FinalStatus, request?: IdempotentRequest) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return request?.heldElsewhere ? KEY_IN_USE : ({ ok: false, code: "CANDIDATE_NOT_FOUND" } as const);
    const earlier = this.replay<Answer<CandidateView>>(accountId, request);
    if (earlier) return earlier;
    const { status } = statusAt(state.record.timeline, now);
    if (status !== "OPEN" && status !== "PENDING") return { ok: false, code: "INVALID_STATE", status } satisfies NotResolvable;
    const record = { ...state.record, timeline: resolvedAt(state.record.timeline, outcome, now) };
    const result = { ok: true, body: candidateJson(record, state.contractJson, now) } as const;
    this.transaction(() => {
      this.save({ ...state, record }, now, { kind: "resolved" });
      this.remember(accountId, request, result);
    });
    return { ...result, bookmark: await this.syncDownstream() };
  }

  async updateMetadata(accountId: string, changes: Metadata) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return { ok: false, code: "CANDIDATE_NOT_FOUND" } as const;
    const current = state.record.metadata ?? {};
    const metadata = mergeMetadata(current, changes);
    const keys = Object.keys(metadata).length;
    if (keys > MAX_METADATA_KEYS) return { ok: false, code: "METADATA_LIMIT", keys } as const;
    if (metadata !== current) this.transaction(() => this.save({ ...state, record: { ...state.record, metadata } }, now));
    const bookmark = await this.syncDownstream();
    const saved = this.load()!;
    return { ok: true, body: candidateJson(saved.record, saved.contractJson, now), bookmark } as const;
  }

  /**
   * Window ends: persist (and notify) the status the timeline already decided, and retry a
   * downstream write that failed. Idempotent: alarms are at-least-once, and fire late or twice.
   */
  async alarm() {
    this.armedAt = undefined; // this alarm is spent: save() must arm the next one
    await this.catchUp(false);
  }

  async settle() {
    await this.catchUp(true);
  }

  /** Settles the status up to now; `rewrite` writes the index row even if it seems current. */
  private async catchUp(rewrite: boolean) {
    const state = this.load();
    if (!state) return;
    const now = Date.now();
    this.transaction(() => this.save(state, now));
    await this.syncDownstream(rewrite);
  }

  /**
   * The stored result of a change this object already made for the same Idempotency-Key (see
   * idempotency.ts), so a retry after a lost response never applies the change twice. With none
   * stored, a request that does not hold the key must not make the change: IN_USE.
   */
  private replay<T extends { ok: true }>(accountId: string, request: IdempotentRequest | undefined): Keyed<T> | Failure<KeyReused | KeyInUse> | undefined {
    if (!request) return undefined;
    const stored = this.storedResult<T>(accountId, request.key, request.fingerprint, request.claimedAt - IDEMPOTENCY_KEEP_MS);
    if (stored) return stored.ok ? { ...stored, replayed: true } : stored;
    return request.heldElsewhere ? KEY_IN_USE : undefined;
  }

  /** The result stored under a key since `after`; 409 when it was for another request; else undefined. */
  private storedResult<T>(accountId: string, key: string, fingerprint: string, after: number): T | Failure<KeyReused> | undefined {
    const row = this.store.keyedResult(accountId, key, after);
    if (!row) return undefined;
    if (row.fingerprint !== fingerprint) return KEY_REUSED;
    return JSON.parse(row.result) as T;
  }

  /**
   * Events' results under the request's Idempotency-Key, one row each (a batch's share of 100
   * answers could exceed what one stored value may hold), under a head row saying how many.
   */
  private rememberResults(accountId: string, request: IdempotentRequest | undefined, results: EventResult[]) {
    if (!request) return;
    this.remember(accountId, request, { ok: true, count: results.length });
    results.forEach((result, i) => this.store.rememberKey(accountId, itemResultKey(request.key, i), request.fingerprint, request.claimedAt, result));
  }

  private replayResults(accountId: string, request: IdempotentRequest | undefined) {
    const head = this.replay<{ ok: true; count: number }>(accountId, request);
    if (!head?.ok) return head;
    const results = Array.from({ length: head.count }, (_, i) =>
      this.storedResult<EventResult>(accountId, itemResultKey(request!.key, i), request!.fingerprint, request!.claimedAt - IDEMPOTENCY_KEEP_MS)!,
    );
    return { ok: true, results, replayed: true } as const;
  }

  /**
   * Records a change's result under its Idempotency-Key, dated by the key's claim (see
   * IdempotentRequest.claimedAt); call inside the change's transaction.
   */
  private remember(accountId: string, request: IdempotentRequest | undefined, result: unknown) {
    if (request) this.store.rememberKey(accountId, request.key, request.fingerprint, request.claimedAt, result);
  }

  /** The candidate if it exists and belongs to `accountId`; another account's is as absent. */
  private owned(accountId: string): StoredState | null {
    const state = this.load();
    return state && state.record.accountId === accountId ? state : null;
  }

  private load(): StoredState | null {
    if (this.state !== undefined) return this.state;
    const row = this.store.candidate();
    if (!row) return (this.state = null);
    this.state = stateOf(recordOf(row), {
      satisfiedMask: row.satisfied_mask,
      eventCount: row.event_count,
      settledStatus: row.settled_status,
      settledSince: row.settled_since,
      indexedVersion: row.indexed_version,
      unflushed: row.unflushed > 0,
    });
    return this.state;
  }

  /**
   * Stores the candidate, called inside the change's transaction. It catches the settled status
   * up to instant `now`, recording a notification for each status entered at its exact boundary
   * instant (`cause`: the request's own change at `now`, if it made one), bumps the version when
   * what the index shows moved, and arms the alarm in the same atomic write, so a due window end
   * or downstream retry is never lost to an eviction.
   */
  private save(state: StoredState, now: number, cause?: Cause) {
    const before = this.state;
    let next = state;
    // What time decided before this change, as the candidate was then (a late alarm's PENDING is
    // notified with the timeline it had, not with the resolve that follows it); then what the
    // change itself entered at `now`.
    const stages: [CandidateRecord, Cause | undefined][] = before ? [[before.record, undefined], [state.record, cause]] : [[state.record, cause]];
    let entered = 0;
    for (const [record, stageCause] of stages) {
      for (const transition of transitionsSince(record.timeline, next.settledStatus, now)) {
        const id = notificationId(record.id, transition.status);
        const candidate = candidateJson(record, next.contractJson, transition.at);
        const payload = notificationJson(id, transition, candidate, causeOf(transition, stageCause, now));
        this.store.recordNotification({ id, type: notificationType(transition.status), payload });
        next = { ...next, settledStatus: transition.status, settledSince: transition.at, unflushed: true };
        entered++;
      }
    }
    if (before && (entered > 0 || indexMoved(before.record, next.record))) {
      next = { ...next, record: { ...next.record, version: before.record.version + 1 } };
    }
    this.store.writeCandidate({
      record: JSON.stringify(next.record),
      satisfied_mask: next.satisfiedMask,
      settled_status: next.settledStatus,
      settled_since: next.settledSince,
      indexed_version: next.indexedVersion,
    });
    // Not awaited on purpose: queued with the write above, and the output gate holds the response
    // until both are durable.
    const due = nextAlarm(next, now, this.downstreamFailures);
    if (due !== this.armedAt) {
      if (due === null) void this.ctx.storage.deleteAlarm();
      else void this.ctx.storage.setAlarm(due);
      this.armedAt = due;
    }
    this.state = next;
  }

  /**
   * Brings the downstream copies up to date: the D1 index row and the notifications feed in one
   * D1 transaction (both idempotent), then the notifications queue. A crash or failure between
   * any two steps is retried by the alarm: a notification may be sent twice, never lost. Rows
   * another call is handing off are left to it (`handingOff`), so without a failure each
   * transition reaches the queue once. `rewrite` writes the index row even when its version looks current (the sweep found it stale).
   * Answers the D1 bookmark of the index write, if it made one.
   */
  private async syncDownstream(rewrite = false): Promise<string | null> {
    const state = this.load()!;
    // The outbox holds nothing unflushed unless the state says so (save() sets `unflushed` with
    // every notification it records, and only handOff clears it): most changes read nothing here.
    const unflushed = state.unflushed ? this.store.unflushedNotifications() : [];
    const toSend = unflushed.filter((n) => !this.handingOff.has(n.id));
    if (!rewrite && state.indexedVersion >= state.record.version && toSend.length === 0) return null;
    for (const n of toSend) this.handingOff.add(n.id);
    try {
      return await this.handOff(state, unflushed, toSend);
    } finally {
      for (const n of toSend) this.handingOff.delete(n.id);
    }
  }

  /**
   * Writes the index row and every unflushed notification to D1 (the feed, in outbox order: an
   * earlier hand-off still under way or failed cannot leave a later status ahead of it there; a
   * row already in the feed is ignored), then hands `toSend` to the queue. All on the account's
   * shard, through a D1 session started at its primary, whose bookmark after the write it answers.
   */
  private async handOff(state: StoredState, unflushed: OutboxRow[], toSend: OutboxRow[]): Promise<string | null> {
    const { record, settledStatus } = state;
    const shard = shardNamed(this.env, record.shard);
    const db = shardDb(this.env, shard).withSession("first-primary");
    try {
      await db.batch([
        candidateIndexStatement(db, record, settledStatus),
        ...unflushed.map((n) => feedInsertStatement(db, { ...n, accountId: record.accountId, alias: record.alias }, Date.now())),
      ]);
      if (toSend.length > 0) {
        await this.env.NOTIFICATIONS.sendBatch(
          toSend.map((n) => ({ body: { id: n.id, account_id: record.accountId, type: n.type, shard } satisfies NotificationMessage })),
        );
      }
    } catch (error) {
      console.error(`candidate ${record.id}: downstream write failed; the alarm retries it`, error);
      this.downstreamFailures++;
      this.transaction(() => this.save(this.load()!, Date.now())); // re-arms the alarm, further out each time
      return bookmarkOn(shard, db.getBookmark()); // the index write's, if only the queue failed
    }
    this.downstreamFailures = 0;
    // Other requests and the alarm may have run during the awaits: save what is current now.
    this.transaction(() => {
      this.store.markFlushed(toSend.map((n) => n.id));
      const current = this.load()!;
      const unflushed = this.store.unflushedNotifications().length > 0;
      this.save({ ...current, indexedVersion: Math.max(current.indexedVersion, record.version), unflushed }, Date.now());
    });
    return bookmarkOn(shard, db.getBookmark());
  }
}

/** The in-memory state of a stored record; the condition is compiled from the stored contract. */
function stateOf(record: CandidateRecord, stored: Omit<StoredState, "record" | "condition" | "contractJson">): StoredState {
  return { record, condition: compileCondition(record.contract.fulfillment_condition), contractJson: contractJson(record.contract), ...stored };
}

/** Whether what the D1 index shows of the candidate moved: its timeline or its metadata. */
const indexMoved = ({ timeline: a, metadata: m }: CandidateRecord, { timeline: b, metadata: n }: CandidateRecord) =>
  a.openUntil !== b.openUntil || a.pendingUntil !== b.pendingUntil || a.finalStatus !== b.finalStatus || m !== n;

/** The state after one more event at `now`, and whether the event satisfied a leaf. Pure. */
function afterEvent(state: StoredState, event: SubmittedEvent, now: number): { after: StoredState; matched: boolean } {
  let { record, satisfiedMask } = state;
  let matched = false;
  if (now < record.timeline.openUntil) {
    const progress = applyEvent(state.condition, satisfiedMask, event);
    satisfiedMask = progress.mask;
    matched = progress.matched;
    if (progress.fulfilled) record = { ...record, timeline: fulfilledAt(record.timeline, record.contract, now) };
  }
  return { after: { ...state, record, satisfiedMask, eventCount: state.eventCount + 1 }, matched };
}

/**
 * The earliest of: the next window end, a retry of a downstream write not yet confirmed (backing
 * off exponentially after failures, so an outage downstream is not hammered by every candidate).
 */
function nextAlarm(state: StoredState, now: number, failures: number): number | null {
  const boundary = nextBoundary(state.record.timeline, now);
  if (state.indexedVersion >= state.record.version && !state.unflushed) return boundary;
  const retryIn = Math.min(MAX_DOWNSTREAM_RETRY_MS, DOWNSTREAM_RETRY_MS * 2 ** Math.min(Math.max(0, failures - 1), 20));
  return Math.min(boundary ?? Infinity, now + retryIn);
}
