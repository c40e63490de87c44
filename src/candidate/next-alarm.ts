/**
 * When a candidate object's alarm must fire next (it is then "armed": docs/candidate-object.md,
 * "Glossary"). Pure.
 */
import { nextBoundary } from "../domain/timeline";
import type { StoredState } from "./state";

/** How soon the alarm first retries a failed write downstream (D1 index and feed, queue). */
export const DOWNSTREAM_RETRY_MS = 2000;
/** The longest wait between two retries, however many failed before. */
export const MAX_DOWNSTREAM_RETRY_MS = 5 * 60_000;

/**
 * How long to wait before retrying downstream after `failures` failed writes in a row: 2 s,
 * doubling after each failure, at most 5 min, so an outage downstream is not hammered by every
 * candidate.
 */
export const downstreamRetryIn = (failures: number) =>
  Math.min(MAX_DOWNSTREAM_RETRY_MS, DOWNSTREAM_RETRY_MS * 2 ** Math.min(Math.max(0, failures - 1), 20));

/**
 * The earliest of: the next window end, and a retry of a downstream write not yet confirmed
 * (the index behind the record's version, or notifications unflushed). Null: nothing is due.
 */
export function nextAlarm(state: StoredState, now: number, failures: number): number | null {
  const boundary = nextBoundary(state.record.timeline, now);
  if (state.indexedVersion >= state.record.version && !state.unflushed) return boundary;
  return Math.min(boundary ?? Infinity, now + downstreamRetryIn(failures));
}
