/**
 * The results of keyed changes, stored in the candidate object's `requests` table with the change
 * itself and answered again to a retry (docs/idempotency.md): under an Idempotency-Key header
 * (create, an event, a batch's share, resolve) and under a batch item's own key.
 */
import { IDEMPOTENCY_KEEP_MS, type IdempotentRequest } from "../idempotency";
import type { EventResult, Failure, ItemKey, KeyInUse, KeyReused, Keyed } from "./rpc";
import type { CandidateStore } from "./storage";

export const KEY_REUSED = { ok: false, code: "IDEMPOTENCY_KEY_REUSED" } as const;
export const KEY_IN_USE = { ok: false, code: "IDEMPOTENCY_KEY_IN_USE" } as const;

/**
 * Item keys share the `requests` table with Idempotency-Key headers. An HTTP header cannot hold
 * NUL, so this prefix keeps the two apart whatever the keys are.
 */
const ITEM_KEY_PREFIX = "\u0000item\u0000";

/**
 * The head row of a keyed request's events: how many results follow it. `only`: a lone event's
 * result, held in the head row itself by the versions of 2026-11-24 alone (still replayed for
 * their 24 hours; nothing writes it now, since code rolled back to before it could not read it).
 */
type EventsHead = { ok: true; count: number; only?: EventResult };

/** Where the i-th result of a keyed request's events is kept (header keys hold no NUL). */
const eventResultKey = (key: string, i: number) => `${key}\u0000${i}`;

export class KeyedResults {
  constructor(private readonly store: CandidateStore) {}

  /**
   * The stored result of a change this object already made for the same Idempotency-Key (see
   * idempotency.ts), so a retry after a lost response never applies the change twice. With none
   * stored, a request that does not hold the key must not make the change: IN_USE.
   */
  replay<T extends { ok: true }>(
    accountId: string,
    request: IdempotentRequest | undefined,
  ): Keyed<T> | Failure<KeyReused | KeyInUse> | undefined {
    if (!request) return undefined;
    const stored = this.stored<T>(accountId, request.key, request.fingerprint, request.claimedAt - IDEMPOTENCY_KEEP_MS);
    if (stored) return stored.ok ? { ...stored, replayed: true } : stored;
    return request.heldElsewhere ? KEY_IN_USE : undefined;
  }

  /**
   * Records a change's result under its Idempotency-Key, dated by the key's claim (see
   * IdempotentRequest.claimedAt); call inside the change's transaction.
   */
  remember(accountId: string, request: IdempotentRequest | undefined, result: unknown) {
    if (request) this.store.rememberKey(accountId, request.key, request.fingerprint, request.claimedAt, result);
  }

  /** The results of events stored under the request's Idempotency-Key, as `replay` answers one. */
  replayEvents(accountId: string, request: IdempotentRequest | undefined) {
    const head = this.replay<EventsHead>(accountId, request);
    if (!head?.ok) return head;
    if (head.only) return { ok: true as const, results: [head.only], replayed: true as const };
    const after = request!.claimedAt - IDEMPOTENCY_KEEP_MS;
    const results = Array.from({ length: head.count }, (_, i) =>
      this.stored<EventResult>(accountId, eventResultKey(request!.key, i), request!.fingerprint, after)!,
    );
    return { ok: true, results, replayed: true } as const;
  }

  /**
   * Events' results under the request's Idempotency-Key, one row each (a batch's share of 100
   * answers could exceed what one stored value may hold), under a head row saying how many. A
   * lone event's too: every version, a rolled-back one included, reads this shape.
   */
  rememberEvents(accountId: string, request: IdempotentRequest | undefined, results: EventResult[]) {
    if (!request) return;
    this.remember(accountId, request, { ok: true, count: results.length });
    results.forEach((result, i) =>
      this.store.rememberKey(accountId, eventResultKey(request.key, i), request.fingerprint, request.claimedAt, result),
    );
  }

  /** A batch item's result stored under its own key within 24 h of `now`; KEY_REUSED when stored for another item. */
  storedItem(accountId: string, { key, fingerprint }: ItemKey, now: number): EventResult | undefined {
    return this.stored<EventResult>(accountId, ITEM_KEY_PREFIX + key, fingerprint, now - IDEMPOTENCY_KEEP_MS);
  }

  /** Records a batch item's result under its own key, dated by the item's instant. */
  rememberItem(accountId: string, { key, fingerprint }: ItemKey, now: number, result: EventResult) {
    this.store.rememberKey(accountId, ITEM_KEY_PREFIX + key, fingerprint, now, result);
  }

  /** The result stored under a key since `after`; 409 when it was for another request; else undefined. */
  private stored<T>(
    accountId: string,
    key: string,
    fingerprint: string,
    after: number,
  ): T | Failure<KeyReused> | undefined {
    const row = this.store.keyedResult(accountId, key, after);
    if (!row) return undefined;
    if (row.fingerprint !== fingerprint) return KEY_REUSED;
    return JSON.parse(row.result) as T;
  }
}
