/**
 * What one delivery attempt's answer means (docs/notifications.md), pure: a 2xx is delivered;
 * anything else failed, and is retried on the schedule unless the schedule has run out, the
 * endpoint answered `410 Gone`, or it has failed every attempt for 5 days (both disable it).
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

export interface Judged {
  status: "succeeded" | "failed";
  error: string | null;
  /** Seconds until the next attempt, or null: the delivery ends with this attempt. */
  retryInSeconds: number | null;
  disable: boolean;
}

/**
 * Attempt number `attempt` (1-based) of a delivery got `answer` at `at`; its endpoint has failed
 * every attempt since `failingSince` (null: its last attempt succeeded). `random` in [0, 1) sets
 * the retry's jitter.
 */
export function judgeAttempt(
  answer: Answer,
  c: { attempt: number; at: number; failingSince: number | null; schedule: number[]; random: number },
): Judged {
  if (isDelivered(answer)) return { status: "succeeded", error: null, retryInSeconds: null, disable: false };
  const gone = answer.responseStatus === 410;
  const failingFor = c.failingSince === null ? 0 : c.at - c.failingSince;
  const disable = gone || failingFor >= DISABLE_AFTER_FAILING_MS;
  let error = gone ? "answered 410 Gone: the endpoint is disabled" : answerProblem(answer)!;
  if (disable && !gone) error += "; the endpoint failed every attempt for 5 days and is disabled";
  return {
    status: "failed",
    error,
    retryInSeconds: disable ? null : retryDelaySeconds(c.schedule, c.attempt, c.random),
    disable,
  };
}
