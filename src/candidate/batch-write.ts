/**
 * Writing a planned call's events (batch-plan.ts), inside the object's transaction: each event
 * recorded, the condition leaves it satisfied first, and its item key's result. Answers every
 * item's result, in order.
 */
import { leavesGained } from "../domain/condition";
import type { BatchPlan } from "./batch-plan";
import type { KeyedResults } from "./keyed-results";
import { candidateJson, recordedEventJson } from "./record";
import type { EventItem, EventResult } from "./rpc";
import type { StoredState } from "./state";
import type { CandidateStore } from "./storage";

export function writePlanned(
  store: CandidateStore,
  keyed: KeyedResults,
  accountId: string,
  state: StoredState,
  items: EventItem[],
  { plans }: BatchPlan,
  now: number,
): EventResult[] {
  const results: EventResult[] = [];
  let mask = state.satisfiedMask;
  for (const [i, plan] of plans.entries()) {
    if (plan.kind === "done") results.push(plan.result);
    else if (plan.kind === "same-as") results.push(results[plan.index]);
    else {
      const event = store.insertEvent(
        plan.id,
        plan.event.type,
        plan.event.hasValue ? JSON.stringify(plan.event.value) : null,
        now,
        plan.matched,
      );
      store.recordProgress(leavesGained(mask, plan.after.satisfiedMask), plan.id, now);
      mask = plan.after.satisfiedMask;
      results.push({
        ok: true,
        body: recordedEventJson(event, candidateJson(plan.after.record, plan.after.contractJson, now)),
      });
      const key = items[i].key;
      if (key) keyed.rememberItem(accountId, key, now, results[i]);
    }
  }
  return results;
}
