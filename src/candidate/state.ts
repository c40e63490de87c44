/**
 * The candidate as a candidate object holds it in memory, how it is read from and written to its
 * `candidate` row, and how one event moves it. Pure. The words (settled, indexed, flushed) are
 * defined in docs/candidate-object.md, "Glossary".
 */
import { applyEvent, compileCondition, type CompiledCondition, type SubmittedEvent } from "../domain/condition";
import type { Contract } from "../domain/contract";
import type { JsonText } from "../domain/json";
import { fulfilledAt, type Status } from "../domain/timeline";
import { contractJson, type CandidateRecord } from "./record";
import type { CandidateRow, StoredCandidateRow } from "./storage";

export interface StoredState {
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
  /** The bookmark (ours: shard and D1's) of the last index write confirmed, if known. */
  indexBookmark: string | null;
  /** Whether notifications wait in the outbox for the feed and the queue. */
  unflushed: boolean;
}

/** The in-memory state of a stored record; the condition is compiled from the stored contract. */
export function stateOf(
  record: CandidateRecord,
  stored: Omit<StoredState, "record" | "condition" | "contractJson">,
): StoredState {
  return {
    record,
    condition: compileCondition(record.contract.fulfillment_condition),
    contractJson: contractJson(record.contract),
    ...stored,
  };
}

/** The state of the stored candidate row, with what the load counted beside it. */
export function stateOfRow(row: StoredCandidateRow): StoredState {
  return stateOf(JSON.parse(row.record) as CandidateRecord, {
    satisfiedMask: row.satisfied_mask,
    eventCount: row.event_count,
    settledStatus: row.settled_status,
    settledSince: row.settled_since,
    indexedVersion: row.indexed_version,
    indexBookmark: row.index_bookmark ?? null,
    unflushed: row.unflushed > 0,
  });
}

/** The `candidate` row that stores the state (the event count and outbox live in their own tables). */
export const rowOfState = (state: StoredState): CandidateRow => ({
  record: JSON.stringify(state.record),
  satisfied_mask: state.satisfiedMask,
  settled_status: state.settledStatus,
  settled_since: state.settledSince,
  indexed_version: state.indexedVersion,
  index_bookmark: state.indexBookmark,
});

/** The state after one more event at `now`, and whether the event satisfied a leaf. */
export function afterEvent(
  state: StoredState,
  event: SubmittedEvent,
  now: number,
): { after: StoredState; matched: boolean } {
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
