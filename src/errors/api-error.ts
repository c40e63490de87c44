/**
 * ApiError, the one exception the app throws for an expected failure, and the body it becomes (the
 * codes, with their statuses and types, are in codes.ts). Node loads this file too, so its import
 * carries its extension.
 */
import { ERROR_CODES, type ErrorCode } from "./codes.ts";
import type { ErrorBody } from "./error-body.ts";
import { characters } from "../domain/text.ts";

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * The one exception the app throws for an expected failure; `onError` turns it into the body.
 * Fields assigned by hand, not as parameter properties: Node loads this file too (the operator
 * store, from the accounts CLI), and its type stripping takes only erasable syntax.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], headers?: Record<string, string>) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.status = ERROR_CODES[code].status;
  }
}

/** Longer values sent are quoted by their start and their length. */
const QUOTED_IN_FULL = 64;

/**
 * A value the caller sent (an id), quoted for a message: in full up to 64 UTF-16 units, else its
 * first 32 and its length (in characters, as every limit of the API counts them), so an answer
 * never grows with what was sent.
 */
export const quoted = (value: string): string =>
  value.length <= QUOTED_IN_FULL ? `'${value}'` : `'${start(value)}…' (${characters(value)} characters)`;

/** A path the caller sent, for a message: as `quoted`, without quotes. */
export const shortened = (value: string): string =>
  value.length <= QUOTED_IN_FULL ? value : `${start(value)}… (${characters(value)} characters)`;

/** The first 32 characters, never half a surrogate pair. */
const start = (value: string) => value.slice(0, /[\uD800-\uDBFF]/.test(value[31]) ? 31 : 32);

/** NOT_FOUND for a path nothing serves: the app's answer, and the operator routes' where they are off. */
export const noEndpointAt = (method: string, path: string) =>
  new ApiError("NOT_FOUND", `No endpoint exists at ${method} ${shortened(path)}.`);

/**
 * VALIDATION_ERROR for the problems found, each with its dotted path: its message lists them all,
 * then `note` (what was not listed, say).
 */
export function validationError(details: ErrorDetail[], note?: string): ApiError {
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ");
  return new ApiError("VALIDATION_ERROR", `The request is invalid: ${summary}${note ? `; ${note}` : ""}`, details);
}

/** Where error pages live: `DOCS_URL` when configured, else this service's own /docs. */
export const docsBaseUrl = (configured: string, requestUrl: string) =>
  (configured || `${new URL(requestUrl).origin}/docs`).replace(/\/+$/, "");

/** The `error` object of an error response (also of a failed batch item). */
export function errorObject(error: ApiError, docsUrl: string): ErrorBody["error"] {
  const info = ERROR_CODES[error.code];
  return {
    type: info.type,
    code: error.code,
    message: error.message,
    status: info.status,
    doc_url: `${docsUrl}/errors/${error.code}`,
    ...(error.details ? { details: error.details } : {}),
  };
}

/** The JSON body of every error response. */
export function errorBody(error: ApiError, docsUrl: string, requestId: string): ErrorBody {
  return { error: errorObject(error, docsUrl), request_id: requestId };
}
