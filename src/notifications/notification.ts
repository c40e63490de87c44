/**
 * Notifications (docs/notifications.md): one per status a candidate enters, with a stable id, the
 * transition instant, the candidate as of that instant and its cause. Pure: the candidate object
 * records them, the feed and webhooks carry the same JSON text.
 */
import type { JsonText } from "../domain/json";
import type { Transition } from "../domain/timeline";
import { isoTime } from "../domain/iso-time";
import type { CandidateView } from "../models";

export const NOTIFICATION_TYPES = ["candidate.pending", "candidate.confirmed", "candidate.failed"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export type Cause =
  | { kind: "event"; event_id: string }
  | { kind: "activity_window_ended" }
  | { kind: "review_window_ended" }
  | { kind: "resolved" };

export interface Notification {
  id: string;
  type: NotificationType;
  timestamp: string;
  data: { candidate: CandidateView; cause: Cause };
}

export const notificationType = (status: Transition["status"]) =>
  `candidate.${status.toLowerCase()}` as NotificationType;

/**
 * A transition's id: a candidate enters each status at most once, so its id and the status name
 * it. Recording the same transition twice gives the same id, so it is recorded once.
 */
export const notificationId = (candidateId: string, status: Transition["status"]) =>
  `ntf_${candidateId.replaceAll("-", "")}_${status.toLowerCase()}`;

/** The candidate and status a notification id names, or null when it is not one. */
export function parseNotificationId(id: string): { candidateId: string; status: Transition["status"] } | null {
  const match = /^ntf_([0-9a-f]{32})_(pending|confirmed|failed)$/.exec(id);
  if (!match) return null;
  const hex = match[1];
  const candidateId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { candidateId, status: match[2].toUpperCase() as Transition["status"] };
}

/**
 * The cause of a transition: the request that made it, when it made one at this instant (an
 * event that fulfilled the condition, a resolve); else the end of the window that decided it.
 */
export function causeOf(transition: Transition, requestCause: Cause | undefined, now: number): Cause {
  if (requestCause && transition.at === now) return requestCause;
  return { kind: transition.window === "activity" ? "activity_window_ended" : "review_window_ended" };
}

/** The notification as JSON text, with the candidate (as of the instant) spliced in. */
export function notificationJson(id: string, transition: Transition, candidate: JsonText<CandidateView>, cause: Cause) {
  const head = JSON.stringify({ id, type: notificationType(transition.status), timestamp: isoTime(transition.at) });
  return `${head.slice(0, -1)},"data":{"candidate":${candidate},"cause":${JSON.stringify(cause)}}}` as JsonText<Notification>;
}

/** The type of the signed event `POST /v1/webhook_endpoints/{id}/test` sends: not a notification. */
export const TEST_EVENT_TYPE = "webhook.test";

/** A test event for an endpoint: its id (a fresh one each time: it is no transition) and JSON. */
export function testEventJson(eventId: string, endpointId: string, at: number) {
  return JSON.stringify({
    id: eventId,
    type: TEST_EVENT_TYPE,
    timestamp: isoTime(at),
    data: { webhook_endpoint_id: endpointId },
  });
}
