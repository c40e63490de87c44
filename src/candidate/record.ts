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

/** An event as its candidate object stores it: `value` is JSON text, null when none was sent. */
export type StoredEvent = {
  id: string;
  type: string;
  value: string | null;
  received_at: number;
  /** 1 when the event satisfied a condition leaf while OPEN. */
  matched: number;
};

export interface EventView {
  id: string;
  type: string;
  value?: Json;
  received_at: string;
  matched: boolean;
}

declare const encodes: unique symbol;
/**
 * JSON text of a `T`. The candidate object answers with response bodies already serialised, so a
 * stored event's value is spliced in as the text it is stored as: never parsed, copied or
 * serialised again on its way out.
 */
export type JsonText<T> = string & { readonly [encodes]: T };

const jsonText = <T>(value: T) => JSON.stringify(value) as JsonText<T>;

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

export const candidateJson = (record: CandidateRecord, now: number) => jsonText(candidateView(record, now));

/** The event as the API shows it (EventView), built from its stored row. */
export function eventJson(event: StoredEvent): JsonText<EventView> {
  const value = event.value === null ? "" : `,"value":${event.value}`;
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)}${value},"received_at":"${iso(event.received_at)}","matched":${event.matched === 1}}` as JsonText<EventView>;
}

export type CandidateWithEvents = CandidateView & { events: EventView[] };

/** The single read: the candidate with its events, oldest first. */
export function candidateWithEventsJson(record: CandidateRecord, now: number, events: StoredEvent[]): JsonText<CandidateWithEvents> {
  // Spliced in before the candidate's closing brace, so `events` comes last.
  return `${candidateJson(record, now).slice(0, -1)},"events":[${events.map(eventJson).join(",")}]}` as JsonText<CandidateWithEvents>;
}

/** The answer to an event submission: the event and the candidate after it. */
export function recordedEventJson(event: StoredEvent, record: CandidateRecord, now: number) {
  return `{"event":${eventJson(event)},"candidate":${candidateJson(record, now)}}` as JsonText<{ event: EventView; candidate: CandidateView }>;
}
