/**
 * Which event first satisfied each satisfied leaf of a candidate's condition, for the single
 * read's `condition_progress` (docs/conditions.md). Recorded with each event since the
 * `condition_progress` table exists; for a candidate from before it, found once from its matched
 * events and stored (a back-fill).
 */
import { leafSatisfied, leavesGained, type SubmittedEvent } from "../domain/condition";
import type { StoredState } from "./state";
import type { CandidateStore } from "./storage";

export type Satisfier = { eventId: string | null; at: number | null };

/**
 * The satisfier of each leaf the mask says is met, by leaf. Leaves with no recorded satisfier are
 * looked for in the matched events, oldest first, and what is found is recorded; a leaf no event
 * satisfies now (met under an earlier version's rules) is recorded with no event, so the search
 * runs once.
 */
export function satisfiers(store: CandidateStore, { condition, satisfiedMask }: StoredState): Map<number, Satisfier> {
  const found = new Map(store.progress().map((row) => [row.leaf, { eventId: row.event_id, at: row.satisfied_at }]));
  const missing = new Set(leavesGained(0, satisfiedMask).filter((leaf) => !found.has(leaf)));
  for (const row of missing.size > 0 ? store.matchedEvents() : []) {
    const event: SubmittedEvent = {
      type: row.type,
      value: row.value === null ? undefined : JSON.parse(row.value),
      hasValue: row.value !== null,
    };
    const leaves = (condition.leavesByEvent.get(row.type) ?? []).filter(
      (leaf) => missing.has(leaf) && leafSatisfied(condition.leaves[leaf], event),
    );
    for (const leaf of leaves) {
      missing.delete(leaf);
      found.set(leaf, { eventId: row.id, at: row.received_at });
    }
    if (leaves.length > 0) store.recordProgress(leaves, row.id, row.received_at);
    if (missing.size === 0) break;
  }
  if (missing.size > 0) store.recordProgress([...missing], null, null);
  return found;
}
