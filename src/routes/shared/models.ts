/**
 * Response models shared by the routes, the error responses every route can give, and the
 * router factory that wires every route's validation into the one error shape.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import type { JsonStream, JsonText } from "../../domain/json";
import { ContractSchema } from "../../domain/contract";
import { JsonValueSchema } from "../../domain/json";
import { STATUSES } from "../../domain/timeline";
import { ERROR_CODES, ERROR_CODE_NAMES, ERROR_TYPES, type ErrorCode } from "../../errors/codes";
import { jsonBody } from "../../json-body";
import { received, validationHook } from "../../errors/zod-issues";
import { validationError } from "../../errors/api-error";
import { idempotency, type IdempotencyOptions } from "../../idempotency";
import type { AppEnv } from "../../app-env";

export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

/** Sends a body serialised where its data is, typed (for the route's schema) as what it encodes. */
export const sendJsonText = <T, S extends ContentfulStatusCode>(c: Context, body: JsonText<T> | JsonStream<T>, status: S) =>
  c.body(body, status, { "Content-Type": "application/json" }) as unknown as Response & TypedResponse<JSONParsed<T>, S, "json">;

export const timestamp = (description: string) =>
  z.string().openapi({ format: "date-time", description, example: "2026-11-22T01:02:03.456Z" });

const limitMessage = (issue: { input?: unknown }) => `must be a whole number from 1 to 100; received ${received(issue.input)}`;
/** A list's `limit` query parameter: items per page, 1 to 100, in digits (`1e2` is refused). */
export const PageLimitSchema = z
  .string({ error: limitMessage })
  .regex(/^[0-9]{1,3}$/)
  .transform(Number)
  .pipe(z.number({ error: limitMessage }).min(1).max(100))
  .openapi({ type: "integer", minimum: 1, maximum: 100, example: 50 });
/** The same, 50 when left out (the summary's applies only with group_by, so it has none). */
export const DefaultPageLimitSchema = PageLimitSchema.default(50).openapi({ default: 50 });

/**
 * A list's `after`: the `next_cursor` of the previous page. Whatever is wrong with one, the caller
 * needs to hear what a cursor is and where it comes from, not how long a string may be.
 */
export const CursorSchema = z
  .string({ error: (issue) => `is not a cursor: pass the \`next_cursor\` of the previous page; received ${received(issue.input)}` })
  .min(1)
  .max(255);

/** The refusal of an `after` that is well formed but is no cursor of this list (`list`: whose it is). */
export const unknownCursor = (after: string, list: string) =>
  validationError([{ path: "after", message: `is not a cursor of ${list}: pass the \`next_cursor\` of its previous page; received ${received(after)}` }]);

/**
 * An instant in a query: ISO 8601 date and time with a zone (`Z` or an offset), as epoch ms. A
 * bound finer than a millisecond is rounded up: instants here are whole milliseconds, so a status
 * that began at .005 is before `.0055` (and so included by `lt`, excluded by `gte`) as it should be.
 * A `+` left unescaped in a query string arrives as a space, so the message says how to write it.
 */
export const InstantSchema = z.iso
  .datetime({
    offset: true,
    error: (issue) =>
      "must be an ISO 8601 date and time with a time zone, like `2026-11-01T00:00:00Z`; in a query, write an offset's " +
      `\`+\` as \`%2B\` (\`2026-11-01T00:00:00%2B01:00\`); received ${received(issue.input)}`,
  })
  .transform((text) => Date.parse(text) + (/\.\d{3}\d*[1-9]/.test(text) ? 1 : 0))
  .openapi({ type: "string", format: "date-time" });

/** A `status_since` range whose start is after its end is empty by mistake: refused at its end. */
export function statusSinceRangeInOrder(query: { status_since_gte?: number; status_since_lt?: number }, ctx: z.RefinementCtx) {
  if (query.status_since_gte !== undefined && query.status_since_lt !== undefined && query.status_since_gte > query.status_since_lt) {
    ctx.addIssue({ code: "custom", path: ["status_since_lt"], message: "must not be earlier than status_since_gte" });
  }
}

export const ErrorBodySchema = z
  .object({
    error: z.object({
      type: z.enum(ERROR_TYPES),
      code: z.enum(ERROR_CODE_NAMES),
      message: z.string(),
      status: z.number().int(),
      doc_url: z.string().openapi({ format: "uri" }),
      details: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: "Every validation problem found, with a dotted path." }),
    }),
    request_id: z.string().openapi({ description: "Also sent as the `Request-Id` response header." }),
  })
  .openapi("Error");

const header = (description: string, type: "string" | "integer" = "string") => ({ description, schema: { type } });

/** Response headers, declared once in the document's components and referred to by every response. */
export const HEADER_COMPONENTS = {
  "Request-Id": header("This request's id; also the `request_id` of an error body. Quote it when reporting a problem."),
  RateLimit: header('The allowance left, e.g. `"per-account";r=5997;t=41` (draft-ietf-httpapi-ratelimit-headers).'),
  "RateLimit-Policy": header('The limit, e.g. `"per-account";q=6000;w=60`: 6,000 requests per 60 s.'),
  "RateLimit-Limit": header("Requests allowed per window.", "integer"),
  "RateLimit-Remaining": header("Requests left in this window.", "integer"),
  "RateLimit-Reset": header("Seconds until the window resets.", "integer"),
  "Idempotent-Replayed": header("`true` when this is the stored response to an earlier request with the same `Idempotency-Key`."),
  "Retry-After": header("Seconds to wait before trying again (on `409 IDEMPOTENCY_KEY_IN_USE`: until the first request completes or its hold lapses).", "integer"),
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
const refs = (...names: HeaderName[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Headers of every /v1 response but the OpenAPI document. */
const COMMON_HEADERS = refs("Request-Id", "RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
const REPLAYED_HEADER = refs("Idempotent-Replayed");
const BOOKMARK_HEADER = refs("Bookmark");

/**
 * A success response: its JSON schema, an example, and the headers every response carries;
 * `replayable` for a POST's (Idempotency-Key), `bookmark` for one that reads or writes the
 * account's data in D1 (account-db.ts).
 */
export const jsonResponse = (description: string, schema: z.ZodType, example?: unknown, { replayable = false, bookmark = false } = {}) => ({
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
  schema: { type: "string", pattern: "^(DB|SHARD_[0-9]+):[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{32}$" },
  description:
    "The newest `Bookmark` response header you were given, as it came: this read sees at least what that request read " +
    "or wrote (your own writes included), whichever replica answers. Left out, or naming another shard than the " +
    "account's (e.g. one kept from another account), it may see a replica a moment behind. Another value is " +
    "400 `VALIDATION_ERROR`.",
} as const;

/** What a read of the account's data through its D1 session declares: the Bookmark parameter. */
export const READS_ACCOUNT_DATA = { parameters: [BOOKMARK_PARAMETER] };

/** The OpenAPI responses for the error codes a route can answer with, grouped by status. */
export function errorResponses(...codes: ErrorCode[]) {
  const all: ErrorCode[] = ["MISSING_API_TOKEN", "INVALID_API_TOKEN", "EXPIRED_API_TOKEN", "INVALID_SESSION", "RATE_LIMITED", "INTERNAL_ERROR", ...codes];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
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
      message: code === "VALIDATION_ERROR" ? "The request is invalid: contract.price: must be at most 10^12 (1000000000000)" : ERROR_CODES[code].when,
      status,
      doc_url: `https://api.example.com/docs/errors/${code}`,
      ...(code === "VALIDATION_ERROR" ? { details: [{ path: "contract.price", message: "must be at most 10^12 (1000000000000)" }] } : {}),
    },
    request_id: "req_01936f0e8a7b7c4d",
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
export const withJsonBody = <T extends z.ZodType, R extends object = object>(schema: T, { request, maxBytes, optional = false }: BodyOptions<R> = {}) => ({
  middleware: jsonBody({ maxBytes, optional }),
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
    "(with `Idempotent-Replayed: true`) and changes nothing again.",
} as const;

/** A POST with a JSON body: the body guards, then Idempotency-Key handling. */
export const withPostBody = <T extends z.ZodType, R extends object = object>(schema: T, options: BodyOptions<R> & IdempotencyOptions = {}) => {
  const { middleware, request } = withJsonBody(schema, options);
  return { middleware: [...middleware, idempotency(options)], request, parameters: [IDEMPOTENCY_KEY_PARAMETER] };
};

/** Errors of every route that reads a JSON body. */
export const BODY_ERRORS: ErrorCode[] = ["VALIDATION_ERROR", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
/** Errors of every POST, which all read a JSON body and honour Idempotency-Key. */
export const POST_ERRORS: ErrorCode[] = [...BODY_ERRORS, "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"];

const MAX_SCHEMA_NAME = 100;
/** What a JSON value is, in the API's words, for a message about a value of the wrong type. */
const jsonKind = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`);

/**
 * A schema's name: 1 to 100 characters, counted as Unicode code points (as JSON Schema's
 * `maxLength` counts them, so an emoji is one), or null for none.
 */
export const SchemaNameSchema = z
  .string({ error: (issue) => `must be a string of 1 to ${MAX_SCHEMA_NAME} characters, or null; received ${jsonKind(issue.input)}` })
  .min(1, { error: "must not be empty: send null for no name" })
  .refine((name) => [...name].length <= MAX_SCHEMA_NAME, {
    error: (issue) => `must be at most ${MAX_SCHEMA_NAME} characters; received ${[...(issue.input as string)].length}`,
  })
  .nullable()
  .openapi({ minLength: 1, maxLength: MAX_SCHEMA_NAME, example: "Purchase of 100 or more" });

export const SchemaSchema = z
  .object({
    id: z.string().uuid(),
    user_id: z.string().uuid().openapi({ description: "The owning account." }),
    name: z.string().nullable().openapi({ description: "Extension. The schema's name; null when it has none.", example: "Purchase of 100 or more" }),
    contract: ContractSchema,
    created_at: timestamp("When the schema was created."),
    updated_at: timestamp("When the contract or name last changed."),
  })
  .openapi("Schema");

export const CandidateSchema = z
  .object({
    id: z.string().uuid().openapi({ description: "Extension. The list cursor." }),
    candidate_alias: z.string(),
    customer_uuid: z.string(),
    schema_id: z.string().nullable().openapi({ description: "Extension. The schema the contract came from, if any." }),
    contract: ContractSchema,
    status: z.enum(STATUSES).openapi({
      description:
        "`OPEN` during the activity window; `PENDING` from the fulfilling event (or the window's end) through the review " +
        "window; then `CONFIRMED` or `FAILED`, final. Exact at the instant of the request.",
    }),
    status_since: timestamp(
      "The exact instant the current status began: creation, the fulfilling event, the end of the activity window, or the end of the review window (or the resolve).",
    ),
    scheduled_outcome: z
      .enum(["CONFIRMED", "FAILED"])
      .nullable()
      .openapi({
        description:
          "null while `OPEN`; from `PENDING` on, what the candidate becomes (or became) when its review ends: `CONFIRMED` after a fulfilling event, else per `timeout_outcome`.",
      }),
    activity_ends_at: timestamp("Extension. End of the activity window (the fulfilment instant once fulfilled)."),
    review_ends_at: timestamp("Extension. End of the review window; null while OPEN.").nullable(),
    created_at: timestamp("Extension. When the candidate was created."),
    metadata: z.record(z.string(), z.string()).openapi({
      description: "Extension. Your own key-value strings (`{}` when none): set at creation, changed with `PATCH`.",
      example: { order_id: "ord_8812" },
    }),
  })
  .openapi("Candidate");

export const EventSchema = z
  .object({
    id: z.string().uuid(),
    type: z.string(),
    value: JsonValueSchema.optional().openapi({ description: "Omitted when the event was sent without a value." }),
    received_at: timestamp("When the service received the event."),
    matched: z.boolean().openapi({ description: "True when this event satisfied a condition leaf while OPEN." }),
  })
  .openapi("Event");

export const ConditionProgressSchema = z
  .object({
    fulfilled: z.boolean().openapi({ description: "Whether the satisfied leaves make the whole condition hold." }),
    leaves: z
      .array(
        z.object({
          path: z.string().openapi({ description: "Where the leaf is in the contract.", example: "fulfillment_condition.all.1" }),
          event: z.string().openapi({ description: "The event type the leaf names." }),
          satisfied: z.boolean().openapi({ description: "Whether an event inside the activity window has satisfied it." }),
          event_id: z
            .string()
            .uuid()
            .nullable()
            .openapi({ description: "The first event that satisfied it; null while unmet (or when it was met before this was kept, by an event that no longer matches it)." }),
          satisfied_at: timestamp("When that event was received; null while unmet.").nullable(),
        }),
      )
      .openapi({ description: "Every leaf of the condition, in contract order." }),
  })
  .openapi("ConditionProgress", {
    description:
      "Extension. What the condition still needs: each leaf, met or not, and the first event that met it. A compound `all` " +
      "with one leaf met shows that leaf satisfied and `fulfilled: false` while the candidate stays `OPEN`.",
  });

export const CandidateWithEventsSchema = CandidateSchema.extend({
  condition_progress: ConditionProgressSchema,
  events: z.array(EventSchema).openapi({ description: "Recorded events, oldest first." }),
}).openapi("CandidateWithEvents");

export const AliasSchema = z.string().min(8).max(255).openapi({ example: "order-2026-0001" });
