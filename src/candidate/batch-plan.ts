/**
 * The plan of a candidate's events in one call (a single event, or its share of a batch): what
 * each item will do, decided before anything is written, as if the items were sent one after the
 * other. Pure: stored item results come from the lookup it is given.
 */
import { uuidv7 } from "uuidv7";
import type { SubmittedEvent } from "../domain/condition";
import { KEY_REUSED } from "./keyed-results";
import type { EventItem, EventResult, ItemKey } from "./rpc";
import { afterEvent, type StoredState } from "./state";

export const MAX_EVENTS_PER_CANDIDATE = 1000;

/** What one item will do. */
export type ItemPlan =
  /** Answered without recording anything: a stored result of its key, or a refusal. */
  | { kind: "done"; result: EventResult }
  /** Answered as an earlier item of the same call with the same key and item. */
  | { kind: "same-as"; index: number }
  /** Recorded, with the state it leaves. */
  | RecordPlan;

type RecordPlan = { kind: "record"; id: string; event: SubmittedEvent; matched: boolean; after: StoredState };

export interface BatchPlan {
  plans: ItemPlan[];
  /** The state after every item. */
  final: StoredState;
  /** The id of the event that fulfilled the condition, if one of these did. */
  fulfilledBy: string | undefined;
}

/** The result stored under an item's key by an earlier call (KEY_REUSED: for another item), or undefined. */
export type StoredItemResult = (key: ItemKey) => EventResult | undefined;

/**
 * Plans `items` at instant `now` on `state`: each sees the state the one before left. An item
 * whose key has a stored result answers it; a key repeated within the call answers the earlier
 * item's result (KEY_REUSED if the items differ); past MAX_EVENTS_PER_CANDIDATE an item is refused.
 * `newId` names each event recorded.
 */
export function planBatch(
  state: StoredState,
  items: EventItem[],
  now: number,
  storedResult: StoredItemResult,
  newId: () => string = uuidv7,
): BatchPlan {
  const plans: ItemPlan[] = [];
  const keysSeen = new Map<string, { fingerprint: string; index: number }>();
  let current = state;
  for (const [index, { event, key }] of items.entries()) {
    if (key) {
      const seen = keysSeen.get(key.key);
      if (seen) {
        plans.push(
          seen.fingerprint === key.fingerprint
            ? { kind: "same-as", index: seen.index }
            : { kind: "done", result: KEY_REUSED },
        );
        continue;
      }
      const stored = storedResult(key);
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
    plans.push({ kind: "record", id: newId(), event, ...step });
    current = step.after;
    if (key) keysSeen.set(key.key, { fingerprint: key.fingerprint, index });
  }
  const fulfilling = plans.find(
    (p): p is RecordPlan => p.kind === "record" && p.after.record !== state.record && p.after.record === current.record,
  );
  return { plans, final: current, fulfilledBy: fulfilling?.id };
}
