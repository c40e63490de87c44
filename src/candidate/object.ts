/**
 * CandidateObject: one SQLite-backed Durable Object per candidate alias, the source of truth for
 * that candidate (docs/candidate-object.md; its words, such as settled, indexed, flushed and
 * armed, are defined in its "Glossary"). Naming the object by the alias makes alias uniqueness
 * global, and its input gate serialises concurrent creates and events.
 *
 * This class coordinates; each job is a module of its own. A change is one storage transaction,
 * made before any other I/O: the change, its keyed result (keyed-results.ts), the settled status
 * and the notifications it records (settle.ts), and the alarm armed for what is due next
 * (next-alarm.ts). Then the downstream copies are brought up to date (downstream.ts); if that
 * fails, the alarm retries it. A call that wrote the D1 index answers that write's bookmark, which
 * the Worker sends back in its response (account-db.ts), so the client's next list reads at least
 * that write.
 */
import { DurableObject } from "cloudflare:workers";
import { newestBookmark } from "../account-db";
import { uuidv7 } from "uuidv7";
import type { SubmittedEvent } from "../domain/condition";
import { MAX_METADATA_KEYS, mergeMetadata, type Metadata } from "../domain/metadata";
import { resolvedAt, statusAt, timelineAtCreation, type FinalStatus } from "../domain/timeline";
import type { IdempotentRequest } from "../idempotency";
import type { Cause } from "../notifications/notification";
import { planBatch } from "./batch-plan";
import { writePlanned } from "./batch-write";
import { Downstream } from "./downstream";
import { KEY_IN_USE, KeyedResults } from "./keyed-results";
import { nextAlarm } from "./next-alarm";
import { candidateJson, candidateWithEventsJson, conditionProgress, type CandidateRecord } from "./record";
import type { CandidateView } from "../models";
import type { Answer, CandidateRpc, EventItem, NewCandidate, NotResolvable } from "./rpc";
import { satisfiers } from "./satisfiers";
import { settle, versioned } from "./settle";
import { rowOfState, stateOf, stateOfRow, type StoredState } from "./state";
import { asStored, CandidateStore } from "./storage";

export class CandidateObject extends DurableObject<Env> implements CandidateRpc {
  private readonly store = new CandidateStore(this.ctx.storage);
  private readonly keyed = new KeyedResults(this.store);
  private readonly downstream = new Downstream(this.store);
  /** In-memory copy of the stored candidate: undefined until loaded, null when none exists. */
  private state: StoredState | null | undefined;
  /** The alarm time this instance last set (undefined: unknown, so the next store sets it). */
  private armedAt: number | null | undefined;

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
      const earlier = this.keyed.replay<Answer<CandidateView>>(input.accountId, request);
      return earlier ? this.withReplayBookmark(earlier) : ({ ok: false, code: "CANDIDATE_ALIAS_TAKEN" } as const);
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
    const state = stateOf(record, {
      satisfiedMask: 0,
      eventCount: 0,
      settledStatus: "OPEN",
      settledSince: now,
      indexedVersion: 0,
      indexBookmark: null,
      unflushed: false,
    });
    const result = { ok: true, body: candidateJson(record, state.contractJson, now) } as const;
    this.transaction(() => {
      this.store.createTables();
      this.settleStoreAndArm(state, now);
      this.keyed.remember(input.accountId, request, result);
    });
    return { ...result, bookmark: await this.syncDownstream() };
  }

  async replayCreate(accountId: string, request: IdempotentRequest) {
    // None of the account's (none at all, or another's, which says nothing): the key's holder is
    // still at work on it (IN_USE), else there is nothing to replay. Reads only: stores nothing.
    if (!this.owned(accountId)) return request.heldElsewhere ? KEY_IN_USE : null;
    const earlier = this.keyed.replay<Answer<CandidateView>>(accountId, request);
    return earlier ? this.withReplayBookmark(earlier) : null;
  }

  async get(accountId: string) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return { ok: false, code: "CANDIDATE_NOT_FOUND" } as const;
    const candidate = candidateJson(state.record, state.contractJson, now);
    const progress = conditionProgress(state.condition, state.satisfiedMask, satisfiers(this.store, state));
    return { ok: true, body: candidateWithEventsJson(candidate, progress, this.store.eventsJson()) } as const;
  }

  async recordEvent(accountId: string, event: SubmittedEvent, request?: IdempotentRequest) {
    const outcome = await this.recordEvents(accountId, [{ event }], request);
    return outcome.ok
      ? { ...outcome.results[0], bookmark: outcome.bookmark, ...(outcome.replayed ? { replayed: true as const } : {}) }
      : outcome;
  }

  /**
   * Applies the items in order, as if sent one after the other: each sees the candidate the one
   * before left. Planned first (reads only), then written in one transaction.
   */
  async recordEvents(
    accountId: string,
    items: EventItem[],
    request?: IdempotentRequest,
  ): ReturnType<CandidateRpc["recordEvents"]> {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return request?.heldElsewhere ? KEY_IN_USE : ({ ok: false, code: "CANDIDATE_NOT_FOUND" } as const);
    const earlier = this.keyed.replayEvents(accountId, request);
    if (earlier) return this.withReplayBookmark(earlier);

    const plan = planBatch(state, items, now, (key) => this.keyed.storedItem(accountId, key, now));
    const moved = plan.final.satisfiedMask !== state.satisfiedMask || plan.final.record !== state.record;
    const write = () => {
      const results = writePlanned(this.store, this.keyed, accountId, state, items, plan, now);
      // Most events change nothing but the event log: the candidate row is rewritten only when
      // the condition's progress or the timeline moved.
      if (moved)
        this.settleStoreAndArm(
          plan.final,
          now,
          plan.fulfilledBy ? { kind: "event", event_id: plan.fulfilledBy } : undefined,
        );
      else this.state = plan.final;
      this.keyed.rememberEvents(accountId, request, results);
      return { ok: true, results } as const;
    };
    // A lone insert is atomic by itself; only several writes need the transaction around them.
    const lone = plan.plans.length === 1 && !request && !items[0].key && !moved;
    const outcome = lone ? write() : this.transaction(write);
    const bookmark = await this.syncDownstream();
    // An item replayed from its own key wrote nothing now: the index's last point covers its write.
    const itemsReplayed = plan.plans.some((p) => p.kind === "done" && p.result.ok);
    return { ...outcome, bookmark: bookmark ?? (itemsReplayed ? this.keptBookmark() : null) };
  }

  /**
   * A replayed success, with the bookmark of the index as it stands: a write still owed is made
   * now (its bookmark), else the last one confirmed, the replayed change's own or a later one.
   */
  private async withReplayBookmark<T extends { ok: boolean }>(earlier: T): Promise<T & { bookmark?: string | null }> {
    if (!earlier.ok) return earlier;
    return { ...earlier, bookmark: (await this.syncDownstream()) ?? this.keptBookmark() };
  }

  /**
   * The bookmark of the last index write confirmed, if it covers the candidate as stored. None
   * while a write is owed (it failed; the alarm retries it): an older point would not show the
   * change. None either for a candidate whose last index write came before it was kept.
   */
  private keptBookmark(): string | null {
    const state = this.load()!;
    return state.indexedVersion >= state.record.version ? state.indexBookmark : null;
  }

  /**
   * Makes the candidate final now with the caller's outcome (docs/lifecycle.md, "Resolve"): from
   * PENDING it ends the review early; from OPEN it voids (FAILED) or confirms without review.
   */
  async resolve(accountId: string, outcome: FinalStatus, request?: IdempotentRequest) {
    const now = Date.now();
    const state = this.owned(accountId);
    if (!state) return request?.heldElsewhere ? KEY_IN_USE : ({ ok: false, code: "CANDIDATE_NOT_FOUND" } as const);
    const earlier = this.keyed.replay<Answer<CandidateView>>(accountId, request);
    if (earlier) return this.withReplayBookmark(earlier);
    const { status } = statusAt(state.record.timeline, now);
    if (status !== "OPEN" && status !== "PENDING")
      return { ok: false, code: "INVALID_STATE", status } satisfies NotResolvable;
    const record = { ...state.record, timeline: resolvedAt(state.record.timeline, outcome, now) };
    const result = { ok: true, body: candidateJson(record, state.contractJson, now) } as const;
    this.transaction(() => {
      this.settleStoreAndArm({ ...state, record }, now, { kind: "resolved" });
      this.keyed.remember(accountId, request, result);
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
    if (metadata !== current)
      this.transaction(() => this.settleStoreAndArm({ ...state, record: { ...state.record, metadata } }, now));
    const bookmark = await this.syncDownstream();
    const saved = this.load()!;
    return { ok: true, body: candidateJson(saved.record, saved.contractJson, now), bookmark } as const;
  }

  /**
   * Window ends: persist (and notify) the status the timeline already decided, and retry a
   * downstream write that failed. Idempotent: alarms are at-least-once, and fire late or twice.
   */
  async alarm() {
    this.armedAt = undefined; // this alarm is spent: the next store must arm the next one
    await this.catchUp({ rewriteIndex: false });
  }

  async settle() {
    await this.catchUp({ rewriteIndex: true });
  }

  /** Settles the status up to now with no change of its own, then syncs downstream. */
  private async catchUp(options: { rewriteIndex: boolean }) {
    const state = this.load();
    if (!state) return;
    const now = Date.now();
    this.transaction(() => this.settleStoreAndArm(state, now));
    await this.syncDownstream(options);
  }

  /** The candidate if it exists and belongs to `accountId`; another account's is as absent. */
  private owned(accountId: string): StoredState | null {
    const state = this.load();
    return state && state.record.accountId === accountId ? state : null;
  }

  private load(): StoredState | null {
    if (this.state !== undefined) return this.state;
    const row = this.store.candidate();
    return (this.state = row ? stateOfRow(row) : null);
  }

  /**
   * Stores the candidate, inside the change's transaction, in three steps: settle (catch the
   * settled status up to `now`, recording a notification per status entered, and bump the
   * version if what the index shows moved; `cause`: the request's own change at `now`, if it
   * made one), write the row, and arm the alarm in the same atomic write, so a due window end or
   * downstream retry is never lost to an eviction.
   */
  private settleStoreAndArm(state: StoredState, now: number, cause?: Cause) {
    const before = this.state ?? null;
    const settled = settle(before, state, now, cause);
    const next = versioned(before, settled);
    for (const notification of settled.notifications) this.store.recordNotification(notification);
    this.store.writeCandidate(rowOfState(next));
    this.arm(nextAlarm(next, now, this.downstream.failures));
    this.state = next;
  }

  /**
   * Sets the alarm to `due` (none: null) unless this instance already did. Not awaited on
   * purpose: queued with the transaction's writes, and the output gate holds the response until
   * all are durable.
   */
  private arm(due: number | null) {
    if (due === this.armedAt) return;
    if (due === null) void this.ctx.storage.deleteAlarm();
    else void this.ctx.storage.setAlarm(due);
    this.armedAt = due;
  }

  /**
   * Brings the downstream copies up to date with the stored candidate (downstream.ts), then
   * stores what that confirmed, or re-arms the alarm to retry. `rewriteIndex` writes the index
   * row even when its version looks current. Answers the bookmark of the index write, if any.
   */
  private async syncDownstream({ rewriteIndex = false }: { rewriteIndex?: boolean } = {}): Promise<string | null> {
    return this.downstream.sync(
      this.env,
      this.load()!,
      { rewriteIndex },
      {
        // Re-arms the alarm, further out with each failure in a row.
        failed: () => this.transaction(() => this.settleStoreAndArm(this.load()!, Date.now())),
        // Other requests and the alarm may have run during the hand-off: store what is current now.
        delivered: (sent, version, bookmark) =>
          this.transaction(() => {
            this.store.markFlushed(sent);
            const current = this.load()!;
            const unflushed = this.store.unflushedNotifications().length > 0;
            this.settleStoreAndArm(
              {
                ...current,
                indexedVersion: Math.max(current.indexedVersion, version),
                indexBookmark: newestBookmark(current.indexBookmark, bookmark),
                unflushed,
              },
              Date.now(),
            );
          }),
      },
    );
  }
}
