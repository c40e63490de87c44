/** What the client throws: the service's error answers, and calls that could not reach it. */
import type { components } from "./generated.ts";

export type ErrorBody = components["schemas"]["Error"];

/**
 * What went wrong: one of the API's error codes, `NETWORK_ERROR` (no answer came), or
 * `HTTP_<status>` (an answer that was not the API's JSON, such as a proxy's error page).
 */
export type ErrorCode = ErrorBody["error"]["code"] | "NETWORK_ERROR" | `HTTP_${number}`;

/** Every error the service answers with, and a call that could not reach it. */
export class CandidateContractError extends Error {
  constructor(
    /** The API's error code (`VALIDATION_ERROR`, `CANDIDATE_NOT_FOUND`, ...), or `NETWORK_ERROR`, or `HTTP_<status>`. */
    readonly code: ErrorCode,
    message: string,
    /** The HTTP status, or 0 when no answer came. */
    readonly status: number,
    /** Every problem a `VALIDATION_ERROR` found, each at its dotted path. */
    readonly details: { path: string; message: string }[] = [],
    /** The request's id, to quote when reporting a problem. */
    readonly requestId: string | null = null,
    /** Where the code is documented. */
    readonly docUrl: string | null = null,
    /** A POST's Idempotency-Key: to call again safely after a NETWORK_ERROR or a 5xx, pass it back. */
    readonly idempotencyKey: string | null = null,
    /** For a NETWORK_ERROR, the platform's error as `cause`. */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "CandidateContractError";
  }
}

/** An answer's body as the service's error, or null when it is not JSON (a proxy's page); the answer stays unread. */
export const errorBody = async (response: Response) =>
  (await response
    .clone()
    .json()
    .catch(() => null)) as ErrorBody | null;

/** The CandidateContractError of a non-2xx answer: what the service said (its code, details, request id). */
export async function errorFromResponse(
  response: Response,
  idempotencyKey: string | null = null,
): Promise<CandidateContractError> {
  const body = await errorBody(response);
  const error = body?.error;
  return new CandidateContractError(
    error?.code ?? (`HTTP_${response.status}` as const),
    error?.message ?? `The service answered ${response.status}.`,
    response.status,
    error?.details ?? [],
    body?.request_id ?? response.headers.get("Request-Id"),
    error?.doc_url ?? null,
    idempotencyKey,
  );
}
