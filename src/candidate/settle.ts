/**
 * Settling: catching a candidate's settled status up to an instant, with a notification for each
 * status entered on the way, and the record version the D1 index orders its writes by. Pure: the
 * object stores what these answer (docs/candidate-object.md, "Glossary": settled status, outbox,
 * version).
 */
import { transitionsSince } from "../domain/timeline";
import { causeOf, notificationId, notificationJson, notificationType, type Cause } from "../notifications/notification";
import { candidateJson, type CandidateRecord } from "./record";
import type { StoredState } from "./state";
import type { OutboxRow } from "./storage";

export interface Settled {
  /** The state with its settled status caught up. */
  state: StoredState;
  /** One per status entered, in order, for the outbox. */
  notifications: OutboxRow[];
}

/**
 * Catches `state`'s settled status up to instant `now`. Each status entered is notified at its
 * exact boundary instant, in two stages: first what time decided for the candidate as it was
 * before this change (`before`: a late alarm's PENDING is notified with the timeline it had, not
 * with the resolve that follows it), then what the change itself entered at `now` (`cause`: the
 * request's own change, if it made one). The settled status never moves back, whatever `now` is.
 */
export function settle(before: StoredState | null, state: StoredState, now: number, cause?: Cause): Settled {
  const stages: [CandidateRecord, Cause | undefined][] = before
    ? [
        [before.record, undefined],
        [state.record, cause],
      ]
    : [[state.record, cause]];
  const notifications: OutboxRow[] = [];
  let next = state;
  for (const [record, stageCause] of stages) {
    for (const transition of transitionsSince(record.timeline, next.settledStatus, now)) {
      const id = notificationId(record.id, transition.status);
      const candidate = candidateJson(record, next.contractJson, transition.at);
      const payload = notificationJson(id, transition, candidate, causeOf(transition, stageCause, now));
      notifications.push({ id, type: notificationType(transition.status), payload });
      next = { ...next, settledStatus: transition.status, settledSince: transition.at, unflushed: true };
    }
  }
  return { state: next, notifications };
}

/**
 * The settled state with the record's version one past `before`'s when what the D1 index shows
 * moved (the settled status, the timeline or the metadata): the index ignores a write older than
 * what it holds. A new candidate (no `before`) keeps the version it was made with.
 */
export function versioned(before: StoredState | null, { state, notifications }: Settled): StoredState {
  if (!before || (notifications.length === 0 && !indexMoved(before.record, state.record))) return state;
  return { ...state, record: { ...state.record, version: before.record.version + 1 } };
}

/** Whether what the D1 index shows of the candidate moved: its timeline or its metadata. */
const indexMoved = ({ timeline: a, metadata: m }: CandidateRecord, { timeline: b, metadata: n }: CandidateRecord) =>
  a.openUntil !== b.openUntil || a.pendingUntil !== b.pendingUntil || a.finalStatus !== b.finalStatus || m !== n;
