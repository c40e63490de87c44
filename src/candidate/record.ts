/**
 * A candidate as stored (in its Durable Object and, for lists, in D1) and as shown in responses.
 * One view function serves the single read, the list and every write response, so they agree.
 */
import { holds, type CompiledCondition } from "../domain/condition";
import type { Contract } from "../domain/contract";
import type { JsonText } from "../domain/json";
import type { Metadata } from "../domain/metadata";
import { statusAt, type Timeline } from "../domain/timeline";
import type { ShardName } from "../shards";
import { isoTime } from "../domain/iso-time";
import type { CandidateView, CandidateWithEvents, ConditionProgress, EventView } from "../models";

export interface CandidateRecord {
  id: string;
  accountId: string;
  alias: string;
  customerUuid: string;
  schemaId: string | null;
  contract: Contract;
  timeline: Timeline;
  /** The account's key-value strings; absent in objects created before metadata existed. */
  metadata?: Metadata;
  /** The account's shard, where the index and feed rows go; absent in objects created before shards (shardNamed). */
  shard?: ShardName;
  /** Bumped on every change the D1 index shows (timeline, metadata); orders writes to the index. */
  version: number;
}

/** A contract's JSON text, made once per candidate and spliced into every view of it. */
export const contractJson = (contract: Contract) => JSON.stringify(contract) as JsonText<Contract>;

/**
 * SQL giving a row of the candidate object's `events` table as the API shows it (EventView): the
 * stored value (JSON text, NULL when none was sent) goes in as it is, and SQLite builds the rest,
 * so a read of many events runs no JavaScript per event. Both the insert (RETURNING) and the read
 * use it, so the two always agree.
 */
export const EVENT_JSON_SQL = `'{"id":"' || id || '","type":' || json_quote(type)
  || COALESCE(',"value":' || value, '')
  || ',"received_at":"' || strftime('%Y-%m-%dT%H:%M:%fZ', received_at / 1000.0, 'unixepoch')
  || '","matched":' || iif(matched, 'true', 'false') || '}'`;

/** What a candidate's view is made of besides its contract: also what a list reads of the index. */
export type CandidateBasics = Pick<
  CandidateRecord,
  "id" | "alias" | "customerUuid" | "schemaId" | "timeline" | "metadata"
>;

/**
 * Whether the candidate has entered PENDING, so its review has an end (decisions §3: `review_ends_at`
 * is pending_until once PENDING, else null): not while OPEN, nor when it went from OPEN straight to
 * its final status (a review window of 0, or resolved while OPEN: both windows end at one instant).
 */
const hadReview = (timeline: CandidateBasics["timeline"], status: string) =>
  status !== "OPEN" && timeline.openUntil < timeline.pendingUntil;

/** What the API shows of a candidate at instant `now`, but its contract (see candidateJson). */
export function candidateFields(record: CandidateBasics, now: number): Omit<CandidateView, "contract"> {
  const { status, since, scheduledOutcome } = statusAt(record.timeline, now);
  return {
    id: record.id,
    candidate_alias: record.alias,
    customer_uuid: record.customerUuid,
    schema_id: record.schemaId,
    status,
    status_since: isoTime(since),
    scheduled_outcome: scheduledOutcome,
    activity_ends_at: isoTime(record.timeline.openUntil),
    review_ends_at: hadReview(record.timeline, status) ? isoTime(record.timeline.pendingUntil) : null,
    created_at: isoTime(record.timeline.createdAt),
    metadata: record.metadata ?? {},
  };
}

/**
 * Which leaves of the condition are met, and by which event (the first to meet each): every
 * leaf in contract order, satisfied as the mask says, with the event that first satisfied it
 * where that is known.
 */
export function conditionProgress(
  condition: CompiledCondition,
  mask: number,
  satisfiers: ReadonlyMap<number, { eventId: string | null; at: number | null }>,
): ConditionProgress {
  return {
    fulfilled: holds(condition.tree, mask),
    leaves: condition.leaves.map((leaf, i) => {
      const by = satisfiers.get(i);
      const at = by?.at ?? null;
      return {
        path: leaf.path,
        event: leaf.event,
        satisfied: ((mask >>> i) & 1) === 1,
        event_id: by?.eventId ?? null,
        satisfied_at: at === null ? null : isoTime(at),
      };
    }),
  };
}

/**
 * The candidate as the API shows it at instant `now` (without `events`). Its contract comes last,
 * spliced in as JSON text: as the list index stores it and as the object keeps it, so it is never
 * parsed and serialised again per response.
 */
export function candidateJson(record: CandidateBasics, contract: JsonText<Contract>, now: number) {
  return `${JSON.stringify(candidateFields(record, now)).slice(0, -1)},"contract":${contract}}` as JsonText<CandidateView>;
}

/** The single read: the candidate, its condition's progress and its events (EVENT_JSON_SQL each, oldest first). */
export function candidateWithEventsJson(
  candidate: JsonText<CandidateView>,
  progress: ConditionProgress,
  events: JsonText<EventView>[],
) {
  // Spliced in before the candidate's closing brace, so `events` comes last.
  return `${candidate.slice(0, -1)},"condition_progress":${JSON.stringify(progress)},"events":[${events.join(",")}]}` as JsonText<CandidateWithEvents>;
}

/** The answer to an event submission: the event (EVENT_JSON_SQL) and the candidate after it. */
export function recordedEventJson(event: JsonText<EventView>, candidate: JsonText<CandidateView>) {
  return `{"event":${event},"candidate":${candidate}}` as JsonText<{ event: EventView; candidate: CandidateView }>;
}

/** A page of the list. */
export function candidatePageJson(candidates: JsonText<CandidateView>[], nextCursor: string | null) {
  return `{"data":[${candidates.join(",")}],"next_cursor":${JSON.stringify(nextCursor)}}` as JsonText<{
    data: CandidateView[];
    next_cursor: string | null;
  }>;
}
