/**
 * The one error vocabulary of the API: every code the service can answer with, its HTTP status,
 * its `type`, and the text of its documentation page. Responses, the OpenAPI document and the
 * /docs pages are all generated from this table. No imports: Node loads this file too.
 */

/** The kinds of error, each code's `type`: what the caller can do about it, at a glance. */
export const ERROR_TYPES = [
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "rate_limit_error",
  "api_error",
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

interface ErrorCodeInfo {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500;
  type: ErrorType;
  /** When the service answers with this code. */
  when: string;
  /** What the caller should do about it. */
  fix: string;
}

export const ERROR_CODES = {
  VALIDATION_ERROR: {
    status: 400,
    type: "invalid_request_error",
    when: "The request failed validation. `details` lists every problem, each with a dotted `path` into the body, query or path (or the name of the header, such as `Idempotency-Key` or `Bookmark`) and a `message`.",
    fix: "Correct each listed field and send the request again. Unknown fields are rejected, so check the spelling of every key.",
  },
  INVALID_JSON: {
    status: 400,
    type: "invalid_request_error",
    when: "The request body is not valid JSON.",
    fix: "Send a well-formed JSON document with `Content-Type: application/json`.",
  },
  MISSING_API_TOKEN: {
    status: 401,
    type: "authentication_error",
    when: "The request has no `Authorization` header (and no dashboard session cookie), or its `Authorization` header is not of the form `Bearer <token>`.",
    fix: "Send `Authorization: Bearer cct_...` with a token created by the accounts CLI.",
  },
  INVALID_API_TOKEN: {
    status: 401,
    type: "authentication_error",
    when: "The bearer token is unknown or has been revoked.",
    fix: "Create a new key with `POST /v1/api_keys` (or the accounts CLI) and use it instead.",
  },
  EXPIRED_API_TOKEN: {
    status: 401,
    type: "authentication_error",
    when: "The API key is past its `expires_at` (set at its creation, or by a roll): the message says when it expired.",
    fix: "Use the key that replaced it (a roll answers it), or create a new key with `POST /v1/api_keys`.",
  },
  INVALID_SESSION: {
    status: 401,
    type: "authentication_error",
    when: "The dashboard's session cookie is missing (on `GET /dashboard/session`), matches no session, or its session has ended: signed out, 12 hours without use, 7 days after sign-in, or the API key it signed in with was revoked or expired. The message says which; the answer clears the cookie. Also when a dashboard page that shows one account calls with the cookie of another (another tab signed in since): then the cookie stays.",
    fix: "Sign in to the dashboard again (a new sign-in link, or an API key), or send `Authorization: Bearer cct_...` instead.",
  },
  INVALID_SIGN_IN_LINK: {
    status: 401,
    type: "authentication_error",
    when: "The dashboard sign-in link's code is unknown, was already used (a link signs in once), or is more than 15 minutes old.",
    fix: "Ask the operator for a new sign-in link (`npm run -s accounts -- sign-in-link --account ID`), or sign in with an API key.",
  },
  PERMISSION_DENIED: {
    status: 403,
    type: "permission_error",
    when: "The API key (or the dashboard session, which has the permissions of the key it signed in with) lacks the permission this request needs (the message names it), or would give a new key a permission it lacks itself. Nothing was changed.",
    fix: "Use a key that holds the named permission, or create one with it from a key that holds it (a full-access key holds every permission).",
  },
  CROSS_SITE_REQUEST: {
    status: 403,
    type: "permission_error",
    when: "A request authenticated by the dashboard's session cookie that changes something (any method but GET, HEAD and OPTIONS), or a sign-in or sign-out, did not come from this service's own pages: its `Origin` is another site's, or its `Sec-Fetch-Site` is not `same-origin`, or it sent neither. Nothing was changed.",
    fix: "Make the request from the dashboard itself; a program authenticates with `Authorization: Bearer cct_...`, which this check does not apply to.",
  },
  NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "No endpoint exists at this path.",
    fix: "Check the path against the OpenAPI document at `/v1/openapi.json`. Every path begins with `/v1`.",
  },
  SCHEMA_NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "The schema id matches no schema of your account: it is wrong, was deleted, or belongs to another account.",
    fix: "List your schemas with `GET /v1/schemas` and use one of their ids.",
  },
  CANDIDATE_NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "The candidate alias matches no candidate of your account: it is wrong or belongs to another account.",
    fix: "Check the alias, or list your candidates with `GET /v1/candidates`.",
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "The webhook endpoint id matches no endpoint of your account: it is wrong, was deleted, or belongs to another account.",
    fix: "List your endpoints with `GET /v1/webhook_endpoints` and use one of their ids.",
  },
  NOTIFICATION_NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "The notification id matches no notification of your account: it is wrong, older than the feed keeps (30 days), or belongs to another account.",
    fix: "Read your notifications with `GET /v1/notifications` and use one of their ids.",
  },
  ACCOUNT_NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "The operator API was given an account id that matches no account.",
    fix: "List the accounts with `npm run -s accounts -- list` and use one of their ids.",
  },
  API_KEY_NOT_FOUND: {
    status: 404,
    type: "invalid_request_error",
    when: "The API key id matches no key of your account: it is wrong or belongs to another account.",
    fix: "List your keys with `GET /v1/api_keys` and use one of their ids.",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    type: "invalid_request_error",
    when: "The path exists but does not accept this HTTP method.",
    fix: "Use one of the methods listed in the `Allow` response header.",
  },
  CANDIDATE_ALIAS_TAKEN: {
    status: 409,
    type: "invalid_request_error",
    when: "A candidate with this alias already exists. Aliases are unique across all accounts.",
    fix: "Choose another alias. If you are retrying a create, read the candidate with `GET /v1/candidates/{alias}` instead.",
  },
  INVALID_STATE: {
    status: 409,
    type: "invalid_request_error",
    when: "The resource is not in a state that allows this operation: a resolve needs an `OPEN` or `PENDING` candidate, a resend an enabled webhook endpoint, a roll an active (neither revoked nor expired) API key; a webhook secret's rotation, an endpoint that stops changing long enough to rotate it, with fewer than 16 replaced secrets still signing.",
    fix: "Read the resource to see its current state; a final (`CONFIRMED` or `FAILED`) candidate cannot be resolved again; enable the endpoint before a resend; create a new API key instead of rolling a revoked or expired one; send a rotation that met a changing endpoint again, or one refused for its replaced secrets after the instant its message gives.",
  },
  EVENT_LIMIT_REACHED: {
    status: 409,
    type: "invalid_request_error",
    when: "The candidate already holds the maximum of 1,000 events. Nothing was recorded.",
    fix: "Stop sending events to this candidate; its condition can be checked with the events it already holds.",
  },
  SCHEMA_LIMIT_REACHED: {
    status: 409,
    type: "invalid_request_error",
    when: "The account already holds the maximum of 1,000 schemas. Nothing was created.",
    fix: "Delete schemas you no longer use with `DELETE /v1/schemas/{id}`, then try again.",
  },
  WEBHOOK_ENDPOINT_LIMIT_REACHED: {
    status: 409,
    type: "invalid_request_error",
    when: "The account already has the maximum of 16 webhook endpoints. Nothing was created.",
    fix: "Delete an endpoint you no longer use with `DELETE /v1/webhook_endpoints/{id}`, or add event types to an existing one.",
  },
  API_KEY_LIMIT_REACHED: {
    status: 409,
    type: "invalid_request_error",
    when: "The account already has the maximum of 100 API keys that are not revoked (expired keys count until revoked, a key replaced by a roll too). Nothing was created.",
    fix: "Revoke keys you no longer use with `POST /v1/api_keys/{id}/revoke`, then try again.",
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    type: "invalid_request_error",
    when: "The Idempotency-Key was already used by your account, within the last 24 hours, for a request with another method, path or body.",
    fix: "Use a new key for each new request; reuse a key only to retry exactly the same request.",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    type: "invalid_request_error",
    when: "Another request with the same Idempotency-Key is still being processed.",
    fix: "Wait the seconds in `Retry-After` and retry with the same key: you will get the first request's response (or, if it died, your retry takes its place).",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    type: "invalid_request_error",
    when: "The request body is larger than the endpoint allows: 64 KiB, or 1 MiB for `POST /v1/events/batch`.",
    fix: "Send a smaller body, or split a batch. Event values are limited to 8 KiB once serialised.",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    type: "invalid_request_error",
    when: "The request has a body but its `Content-Type` is not `application/json`, or it is compressed (a `Content-Encoding` other than `identity`).",
    fix: "Send the body as uncompressed JSON with `Content-Type: application/json`.",
  },
  RATE_LIMITED: {
    status: 429,
    type: "rate_limit_error",
    when: "More requests than a rate limit allows in its current window: the account's requests, or from one client address its failed authentications or its requests for the public OpenAPI document. The message says which; the `RateLimit` headers of every response show the allowance left.",
    fix: "Wait the number of seconds in the `Retry-After` header, then retry. Spread requests out, or ask for a higher limit.",
  },
  INTERNAL_ERROR: {
    status: 500,
    type: "api_error",
    when: "The service failed unexpectedly. Nothing is known to have been changed, but it may have been.",
    fix: "Retry the request; quote the `request_id` when reporting the problem.",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
