/**
 * OpenAPI plumbing every route uses: the router factory that wires validation into the one error
 * shape, success and error responses with their headers, and how a route takes a JSON body (with
 * Idempotency-Key on a POST).
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import type { JsonStream, JsonText } from "../../domain/json";
import { ERROR_CODES, type ErrorCode } from "../../errors/codes";
import { ErrorBodySchema } from "../../errors/error-body";
import { validationHook } from "../../errors/zod-issues";
import { jsonBody } from "../../json-body";
import { idempotency, type IdempotencyOptions } from "../../idempotency";
import type { AppEnv } from "../../app-env";

export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

/** Sends a body serialised where its data is, typed (for the route's schema) as what it encodes. */
export const sendJsonText = <T, S extends ContentfulStatusCode>(
  c: Context,
  body: JsonText<T> | JsonStream<T>,
  status: S,
) =>
  c.body(body, status, { "Content-Type": "application/json" }) as unknown as Response &
    TypedResponse<JSONParsed<T>, S, "json">;

const header = (description: string, type: "string" | "integer" = "string") => ({ description, schema: { type } });

/** Response headers, declared once in the document's components and referred to by every response. */
export const HEADER_COMPONENTS = {
  "Request-Id": header("This request's id; also the `request_id` of an error body. Quote it when reporting a problem."),
  RateLimit: header('The allowance left, e.g. `"per-account";r=5997;t=41` (draft-ietf-httpapi-ratelimit-headers).'),
  "RateLimit-Policy": header('The limit, e.g. `"per-account";q=6000;w=60`: 6,000 requests per 60 s.'),
  "RateLimit-Limit": header("Requests allowed per window.", "integer"),
  "RateLimit-Remaining": header("Requests left in this window.", "integer"),
  "RateLimit-Reset": header("Seconds until the window resets.", "integer"),
  "Idempotent-Replayed": header(
    "`true` when this is the stored response to an earlier request with the same `Idempotency-Key`.",
  ),
  "Retry-After": header(
    "Seconds to wait before trying again (on `409 IDEMPOTENCY_KEY_IN_USE`: until the first request completes or its hold lapses).",
    "integer",
  ),
  "WWW-Authenticate": header("`Bearer`: how to authenticate."),
  Bookmark: header(
    "The point of the account's database this request read or wrote (the service reads through D1 read replicas), as " +
      "`<shard>:<D1 bookmark>`, e.g. `SHARD_1:0000007b-0000b26e-00001538-0c3e87bb37b3db5cc52eedb93cd3b96b`. Send the " +
      "newest one you were given back as the `Bookmark` request header: those reads then see at least as much, your own " +
      "writes included. Of two with the same shard the greater (as text) is the newer; one with another shard replaces " +
      "the one you keep. Also on a replayed response (`Idempotent-Replayed`): the first response's. Absent when the " +
      "request read or wrote none of it (an event that changed nothing lists show).",
  ),
};
type HeaderName = keyof typeof HEADER_COMPONENTS;
const refs = (...names: HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Headers of every /v1 response but the OpenAPI document. */
const COMMON_HEADERS = refs(
  "Request-Id",
  "RateLimit",
  "RateLimit-Policy",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
);
const REPLAYED_HEADER = refs("Idempotent-Replayed");
const BOOKMARK_HEADER = refs("Bookmark");

/**
 * A success response: its JSON schema, an example, and the headers every response carries;
 * `replayable` for a POST's (Idempotency-Key), `bookmark` for one that reads or writes the
 * account's data in D1 (account-db.ts).
 */
export const jsonResponse = (
  description: string,
  schema: z.ZodType,
  example?: unknown,
  { replayable = false, bookmark = false } = {},
) => ({
  description,
  headers: { ...COMMON_HEADERS, ...(replayable ? REPLAYED_HEADER : {}), ...(bookmark ? BOOKMARK_HEADER : {}) },
  content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } },
});

/**
 * The request's `Bookmark`, on the reads of the account's data (account-db.ts checks it). A plain
 * parameter, as Idempotency-Key is, and without an example: the reference's "Test Request" would
 * send a made-up one.
 */
const BOOKMARK_PARAMETER = {
  name: "Bookmark",
  in: "header",
  required: false,
  schema: {
    type: "string",
    pattern: "^(DB|SHARD_[0-9]+):[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{32}$",
  },
  description:
    "The newest `Bookmark` response header you were given, as it came: this read sees at least what that request read " +
    "or wrote (your own writes included), whichever replica answers. Left out, or naming another shard than the " +
    "account's (e.g. one kept from another account), it may see a replica a moment behind. Another value is " +
    "400 `VALIDATION_ERROR`.",
} as const;

/** What a read of the account's data through its D1 session declares: the Bookmark parameter. */
export const READS_ACCOUNT_DATA = { parameters: [BOOKMARK_PARAMETER] };

/**
 * The OpenAPI responses for the error codes a route can answer with, grouped by status. Every
 * route may answer VALIDATION_ERROR: a query parameter it does not define is refused.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const all = new Set<ErrorCode>([
    "VALIDATION_ERROR",
    "MISSING_API_TOKEN",
    "INVALID_API_TOKEN",
    "EXPIRED_API_TOKEN",
    "INVALID_SESSION",
    "RATE_LIMITED",
    "INTERNAL_ERROR",
    ...codes,
  ]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all)
    byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      {
        description: group.map((code) => `\`${code}\`: ${ERROR_CODES[code].when}`).join("\n\n"),
        headers: {
          ...COMMON_HEADERS,
          ...(status === 429 || group.includes("IDEMPOTENCY_KEY_IN_USE") ? refs("Retry-After") : {}),
          ...(status === 401 ? refs("WWW-Authenticate") : {}),
        },
        content: { "application/json": { schema: ErrorBodySchema, example: errorExample(group[0], status) } },
      },
    ]),
  );
}

function errorExample(code: ErrorCode, status: number) {
  return {
    error: {
      type: ERROR_CODES[code].type,
      code,
      message:
        code === "VALIDATION_ERROR"
          ? "The request is invalid: contract.price: must be at most 10^12 (1000000000000); received 5000000000000"
          : ERROR_CODES[code].when,
      status,
      doc_url: `https://api.example.com/docs/errors/${code}`,
      ...(code === "VALIDATION_ERROR"
        ? {
            details: [
              { path: "contract.price", message: "must be at most 10^12 (1000000000000); received 5000000000000" },
            ],
          }
        : {}),
    },
    request_id: "0f9d6c2e-5b1a-4f3e-9c8d-2a7b6e1f4c3d", // a random UUID, as every Request-Id is
  };
}

/** How a route takes its JSON body. */
export interface BodyOptions<R extends object> {
  /** Path or query parameters of the route, as `request` takes them. */
  request?: R;
  /** Largest body accepted (default 64 KiB). */
  maxBytes?: number;
  /** The body may be left out (it is then `{}`). */
  optional?: boolean;
}

/**
 * The request part and middleware of a route that reads a JSON body: the body guards run only on
 * matched routes, so an unknown path is a 404 whatever its body.
 */
export const withJsonBody = <T extends z.ZodType, R extends object = object>(
  schema: T,
  { request, maxBytes, optional = false }: BodyOptions<R> = {},
) => ({
  middleware: jsonBody({ maxBytes, optional, schema }),
  request: { ...(request as R), body: { required: !optional, content: { "application/json": { schema } } } },
});

/**
 * Documented as a plain parameter rather than a zod header schema: the idempotency middleware
 * validates it (same bounds), and a header validator would copy every request's headers. It has
 * no example on purpose: the reference's "Test Request" fills in examples, and one key sent with
 * every POST's body makes the second POST from the page 409 IDEMPOTENCY_KEY_REUSED.
 */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", minLength: 1, maxLength: 255 },
  description:
    "Retry-safe requests: the same key and body within 24 hours replays the first response " +
    "(with `Idempotent-Replayed: true`) and changes nothing again. Where the answer shows a secret (creating or " +
    "rolling an API key, creating a webhook endpoint or rotating its secret), only to the same API key or dashboard session.",
} as const;

/** A POST with a JSON body: the body guards, then Idempotency-Key handling. */
export const withPostBody = <T extends z.ZodType, R extends object = object>(
  schema: T,
  options: BodyOptions<R> & IdempotencyOptions = {},
) => {
  const { middleware, request } = withJsonBody(schema, options);
  return { middleware: [...middleware, idempotency(options)], request, parameters: [IDEMPOTENCY_KEY_PARAMETER] };
};

/** Errors of every route that reads a JSON body. */
export const BODY_ERRORS: ErrorCode[] = [
  "VALIDATION_ERROR",
  "INVALID_JSON",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
];
/** Errors of every POST, which all read a JSON body and honour Idempotency-Key. */
export const POST_ERRORS: ErrorCode[] = [...BODY_ERRORS, "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"];
