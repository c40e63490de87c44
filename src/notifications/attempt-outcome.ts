/**
 * What one delivery attempt's answer means (docs/notifications.md), pure: a 2xx is delivered;
 * anything else failed, and is retried on the schedule unless the schedule has run out or the
 * endpoint is disabled: by this failure (`410 Gone`, or every attempt failed for 5 days), or
 * already (decided against the endpoint as it is when the answer comes, by `recordFailure` in
 * src/db/webhook-deliveries.ts).
 */
import { retryDelaySeconds } from "./retry-schedule";

/** An endpoint failing every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

/** What a request got: a response status, or why there was none (a timeout, a refused connection). */
export interface Answer {
  responseStatus: number | null;
  error: string | null;
}

export const isDelivered = (answer: Answer) =>
  answer.responseStatus !== null && answer.responseStatus >= 200 && answer.responseStatus < 300;

/** Why an answer is not a delivery, in the log's words; null for a 2xx. */
export function answerProblem(answer: Answer): string | null {
  if (isDelivered(answer)) return null;
  return answer.responseStatus === null
    ? (answer.error ?? "no response")
    : `answered ${answer.responseStatus}, not a 2xx`;
}

/** Why a failed attempt's endpoint is disabled: by it (410, 5 days of failures), or already; null: it is not. */
export type DisabledBy = "gone" | "failing" | "already" | null;

export interface Judged {
  status: "succeeded" | "failed";
  error: string | null;
  /** Seconds until the next attempt, or null: the delivery ends with this attempt. */
  retryInSeconds: number | null;
}

/**
 * Attempt number `attempt` (1-based) of a delivery got `answer`, and (if it failed) disabled its
 * endpoint or not. `random` in [0, 1) sets the retry's jitter.
 */
export function judgeAttempt(
  answer: Answer,
  c: { attempt: number; disabledBy: DisabledBy; schedule: number[]; random: number },
): Judged {
  if (isDelivered(answer)) return { status: "succeeded", error: null, retryInSeconds: null };
  const error =
    c.disabledBy === "gone"
      ? "answered 410 Gone: the endpoint is disabled"
      : c.disabledBy === "failing"
        ? `${answerProblem(answer)}; the endpoint failed every attempt for 5 days and is disabled`
        : c.disabledBy === "already"
          ? `${answerProblem(answer)}; the endpoint is disabled`
          : answerProblem(answer)!;
  return {
    status: "failed",
    error,
    retryInSeconds: c.disabledBy ? null : retryDelaySeconds(c.schedule, c.attempt, c.random),
  };
}
