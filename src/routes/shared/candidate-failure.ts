/**
 * The errors of a candidate object's refusals, worded once for every route that asks an object
 * (candidates, events and each item of a batch), so the same refusal always reads the same.
 */
import { ApiError } from "../../errors/api-error";
import type { ErrorCode } from "../../errors/codes";
import { KEY_IN_USE_MESSAGE, KEY_REUSED_MESSAGE } from "../../idempotency";

const FAILURE_MESSAGES = {
  CANDIDATE_NOT_FOUND: (alias: string) => `No candidate with alias '${alias}' exists in this account.`,
  CANDIDATE_ALIAS_TAKEN: (alias: string) => `The alias '${alias}' is already in use.`,
  EVENT_LIMIT_REACHED: (alias: string) => `Candidate '${alias}' already holds the maximum number of events.`,
  INVALID_STATE: (alias: string, status?: string) =>
    `Candidate '${alias}' is ${status ?? "final"}: only an OPEN or PENDING candidate can be resolved.`,
  IDEMPOTENCY_KEY_REUSED: () => KEY_REUSED_MESSAGE,
  // Answered only to a request whose key another holds (idempotency.ts, which adds Retry-After); a
  // batch never is one, but its items' results are typed with every refusal an object can give.
  IDEMPOTENCY_KEY_IN_USE: () => KEY_IN_USE_MESSAGE,
} satisfies Partial<Record<ErrorCode, (alias: string, status?: string) => string>>;

/** The ApiError for a failure the candidate object reported (with the status it is in, if it says). */
export function candidateFailure(code: keyof typeof FAILURE_MESSAGES, alias: string, status?: string) {
  return new ApiError(code, FAILURE_MESSAGES[code](alias, status));
}
