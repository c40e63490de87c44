/**
 * The lifecycle of a candidate as a timeline (docs/lifecycle.md).
 *
 * Three values fixed at each decision point decide the status at any instant, so a read never
 * waits for an alarm: the Durable Object and the D1 list index store the same values and compute
 * the same answer (the SQL twin of `statusAt` is in db/status-at-sql.ts).
 * All instants are epoch milliseconds.
 */
import type { Contract } from "./contract";

export type FinalStatus = "CONFIRMED" | "FAILED";
export type Status = "OPEN" | "PENDING" | FinalStatus;
export const STATUSES = ["OPEN", "PENDING", "CONFIRMED", "FAILED"] as const;

export interface Timeline {
  createdAt: number;
  /** End of the activity window: OPEN before it. */
  openUntil: number;
  /** End of the review window: PENDING from openUntil until it, then finalStatus. */
  pendingUntil: number;
  finalStatus: FinalStatus;
}

export interface StatusView {
  status: Status;
  /** The exact boundary instant the current status began. */
  since: number;
  scheduledOutcome: FinalStatus | null;
}

/** Window lengths are seconds with fractions honoured to the millisecond. */
export const secondsToMs = (seconds: number): number => Math.round(seconds * 1000);

export function timelineAtCreation(contract: Contract, createdAt: number): Timeline {
  const openUntil = createdAt + secondsToMs(contract.activity_window);
  return {
    createdAt,
    openUntil,
    pendingUntil: openUntil + secondsToMs(contract.review_window),
    finalStatus: contract.timeout_outcome === "confirm" ? "CONFIRMED" : "FAILED",
  };
}

/** The condition was fulfilled at `at` (while OPEN): PENDING now, CONFIRMED after review. */
export function fulfilledAt(timeline: Timeline, contract: Contract, at: number): Timeline {
  return {
    ...timeline,
    openUntil: at,
    pendingUntil: at + secondsToMs(contract.review_window),
    finalStatus: "CONFIRMED",
  };
}

/**
 * A candidate resolved by the caller at `at` takes `outcome` from that instant on. From OPEN
 * (void, or confirm without review) its activity window ends then too: no PENDING between.
 */
export function resolvedAt(timeline: Timeline, outcome: FinalStatus, at: number): Timeline {
  return { ...timeline, openUntil: Math.min(timeline.openUntil, at), pendingUntil: at, finalStatus: outcome };
}

export function statusAt(timeline: Timeline, t: number): StatusView {
  if (t < timeline.openUntil) return { status: "OPEN", since: timeline.createdAt, scheduledOutcome: null };
  if (t < timeline.pendingUntil) {
    return { status: "PENDING", since: timeline.openUntil, scheduledOutcome: timeline.finalStatus };
  }
  return { status: timeline.finalStatus, since: timeline.pendingUntil, scheduledOutcome: timeline.finalStatus };
}

/** How far along the lifecycle a status is: it only ever moves to a higher rank. */
export const STATUS_RANK: Record<Status, number> = { OPEN: 0, PENDING: 1, CONFIRMED: 2, FAILED: 2 };

export interface Transition {
  /** The status entered. */
  status: Exclude<Status, "OPEN">;
  /** The exact boundary instant it was entered. */
  at: number;
  /**
   * The window whose end it is: a final status entered at the activity window's end (a review
   * window of 0) ends the activity window, not a review that never ran.
   */
  window: "activity" | "review";
}

/**
 * The statuses a candidate entered after `settled`, up to instant `t`, in order: PENDING at the
 * end of the activity window (unless the review window is 0) and the final status at the end of
 * the review window. What is recorded once per status: the notifications.
 */
export function transitionsSince(timeline: Timeline, settled: Status, t: number): Transition[] {
  const entered: Transition[] = [];
  const rank = STATUS_RANK[settled];
  if (rank < 1 && timeline.openUntil <= t && timeline.openUntil < timeline.pendingUntil) {
    entered.push({ status: "PENDING", at: timeline.openUntil, window: "activity" });
  }
  if (rank < 2 && timeline.pendingUntil <= t) {
    entered.push({
      status: timeline.finalStatus,
      at: timeline.pendingUntil,
      window: timeline.pendingUntil === timeline.openUntil ? "activity" : "review",
    });
  }
  return entered;
}

/** The next instant after `t` at which the status changes, or null once it is final. */
export function nextBoundary(timeline: Timeline, t: number): number | null {
  if (t < timeline.openUntil) return timeline.openUntil;
  if (t < timeline.pendingUntil) return timeline.pendingUntil;
  return null;
}
