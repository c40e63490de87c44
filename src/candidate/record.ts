/**
 * A candidate as stored (in its Durable Object and, for lists, in D1) and as shown in responses.
 * One view function serves the single read, the list and every write response, so they agree.
 */
import type { Contract } from "../domain/contract";
import type { Json } from "../domain/json";
import { statusAt, type Timeline } from "../domain/timeline";

export interface CandidateRecord {
  id: string;
  accountId: string;
  alias: string;
  customerUuid: string;
  schemaId: string | null;
  contract: Contract;
  timeline: Timeline;
  /** Bumped on every change of the timeline; orders writes to the D1 index. */
  version: number;
}

export interface EventRecord {
  id: string;
  type: string;
  hasValue: boolean;
  value?: Json;
  receivedAt: number;
  matched: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The candidate as the API shows it at instant `now` (without `events`). */
export function candidateView(record: CandidateRecord, now: number) {
  const { status, since, scheduledOutcome } = statusAt(record.timeline, now);
  return {
    id: record.id,
    candidate_alias: record.alias,
    customer_uuid: record.customerUuid,
    schema_id: record.schemaId,
    contract: record.contract,
    status,
    status_since: iso(since),
    scheduled_outcome: scheduledOutcome,
    activity_ends_at: iso(record.timeline.openUntil),
    review_ends_at: status === "OPEN" ? null : iso(record.timeline.pendingUntil),
    created_at: iso(record.timeline.createdAt),
  };
}

export type CandidateView = ReturnType<typeof candidateView>;

export function eventView(event: EventRecord) {
  return {
    id: event.id,
    type: event.type,
    ...(event.hasValue ? { value: event.value } : {}),
    received_at: iso(event.receivedAt),
    matched: event.matched,
  };
}

export type EventView = ReturnType<typeof eventView>;
