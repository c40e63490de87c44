/**
 * Turning bad input into VALIDATION_ERROR details, and the guards every JSON body passes before
 * the route's own schema sees it (media type, size, JSON syntax, then strict-json.ts: nesting
 * depth, Unicode, numbers kept exactly, no duplicate keys).
 */
import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { Context, Next } from "hono";
import { ApiError, type ErrorDetail } from "./errors";
import { strictJsonProblems } from "./strict-json";
import type { AppEnv } from "./app-env";

export const MAX_BODY_BYTES = 64 * 1024;
/** POST /v1/events/batch: up to 100 events of up to 8 KiB each. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/** A value as a message quotes it: text in backticks (cut short), a number as written, else its kind. */
export function received(input: unknown): string {
  if (typeof input === "string") {
    const chars = [...input];
    return input === "" ? "an empty string" : `\`${chars.length > 64 ? `${chars.slice(0, 64).join("")}...` : input}\``;
  }
  return typeof input === "number" && Number.isFinite(input) ? String(input) : kind(input);
}

/** What sort of JSON value something is, as a message names it. */
function kind(input: unknown): string {
  if (input === undefined) return "nothing";
  if (input === null) return "null";
  if (Array.isArray(input)) return input.length === 0 ? "an empty array" : "an array";
  if (typeof input === "number") return Number.isFinite(input) ? "a number" : String(input);
  if (typeof input === "boolean") return "a boolean";
  if (typeof input === "object") return "an object";
  return `a ${typeof input}`;
}

const EXPECTED_TYPE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  record: "an object",
  null: "null",
};

const FORMATS: Record<string, string> = {
  uuid: "a UUID, like 01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f",
  guid: "a UUID, like 01936f0e-8a7b-7c4d-9e2f-3a4b5c6d7e8f",
  datetime: "an ISO 8601 date and time with a time zone, like 2026-11-01T00:00:00Z",
  date: "an ISO 8601 date, like 2026-11-01",
  email: "an email address",
  url: "an absolute URL, like https://example.com",
};

const AFFIXES: Record<string, string> = { starts_with: "start with", ends_with: "end with", includes: "contain" };

const plural = (n: number | bigint, one: string) => `${n} ${one}${n === 1 || n === 1n ? "" : "s"}`;
const listed = (values: readonly unknown[]) => values.map((v) => `\`${String(v)}\``).join(", ");

/**
 * The service's sentence for an issue that its schema gave no message of its own: every refusal
 * names what was expected in the API's terms and what was received, never a library's wording
 * (docs/errors.md). Messages read after the field's path: "price: must be at least 0; received -1".
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string {
  const got = `received ${received(issue.input)}`;
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      // A fraction where a whole number belongs is quoted; otherwise the kind of value is what is wrong.
      return `must be ${EXPECTED_TYPE[issue.expected] ?? `a ${issue.expected}`}; received ${issue.expected === "int" ? received(issue.input) : kind(issue.input)}`;
    case "invalid_value":
      if (issue.input === undefined) return "is required";
      return `must be ${issue.values.length === 1 ? "" : "one of "}${listed(issue.values)}; ${got}`;
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const bound = small ? issue.minimum : issue.maximum;
      const input = issue.input;
      if (issue.origin === "string" || issue.origin === "array" || issue.origin === "set") {
        const size = typeof input === "string" ? [...input].length : Array.isArray(input) ? input.length : undefined;
        const unit = issue.origin === "string" ? "character" : "item";
        if (small && Number(bound) === 1) return `must not be empty; ${got}`;
        const wanted = issue.exact ? "exactly" : small ? "at least" : "at most";
        return `must have ${wanted} ${plural(bound, unit)}; received ${size === undefined ? kind(input) : plural(size, unit)}`;
      }
      const wanted = issue.inclusive === false ? (small ? "greater than" : "less than") : small ? "at least" : "at most";
      return `must be ${wanted} ${bound}; ${got}`;
    }
    case "invalid_format":
      if (issue.format === "regex") return `must match \`${issue.pattern}\`; ${got}`;
      if (issue.format in AFFIXES) return `must ${AFFIXES[issue.format]} \`${String(issue.prefix ?? issue.suffix ?? issue.includes)}\`; ${got}`;
      return `must be ${FORMATS[issue.format] ?? `a valid ${issue.format}`}; ${got}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}; ${got}`;
    case "unrecognized_keys":
      return "is not a known field";
    case "invalid_key":
      return `is not an allowed key: ${issue.issues.map((i) => i.message).join("; ")}`;
    case "invalid_element":
      return `is not an allowed value: ${issue.issues.map((i) => i.message).join("; ")}`;
    case "invalid_union":
      return `matches none of the accepted forms; received ${kind(issue.input)}`;
    default:
      return `is not accepted; ${got}`;
  }
}

z.config({ customError: issueMessage });

const dotted = (path: PropertyKey[]) => path.map(String).join(".");

/** Every problem zod found, one detail each; an unknown key is reported at its own path. */
export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: "is not a known field" }))
      : [{ path: dotted(issue.path), message: issue.message }],
  );
}

export function validationError(details: ErrorDetail[]): ApiError {
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ");
  return new ApiError("VALIDATION_ERROR", `The request is invalid: ${summary}`, details);
}

/** The validator hook of every route: failures become one VALIDATION_ERROR. */
export function validationHook(result: { success: boolean; error?: ZodError }) {
  if (!result.success) throw validationError(zodDetails(result.error!));
}

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
/** JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, never replaced with U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const unsupportedMediaType = () => new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as JSON with `Content-Type: application/json`.");

/**
 * Media type, size, syntax and I-JSON checks for POST and PATCH bodies: route middleware, in
 * order. An `optional` body may be left out: an empty body (whatever a proxy on the way made of
 * it: no body, or a stream of no bytes) reads as `{}`.
 */
export const jsonBody = ({ maxBytes = MAX_BODY_BYTES, optional = false }: { maxBytes?: number; optional?: boolean } = {}) => [
  createMiddleware<AppEnv>(async (c, next) => {
    const contentType = c.req.header("Content-Type");
    // Without a Content-Type, an optional body is judged once read: empty, or refused.
    if (contentType === undefined ? !optional : !JSON_MEDIA_TYPE.test(contentType)) throw unsupportedMediaType();
    await next();
  }),
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxBytes} bytes (${maxBytes / 1024} KiB).`);
    },
  }),
  createMiddleware<AppEnv>(async (c, next) => {
    const bytes = c.req.raw.body === null ? new ArrayBuffer(0) : await c.req.arrayBuffer();
    if (bytes.byteLength === 0 && optional) return parsed(c, {}, next);
    if (c.req.header("Content-Type") === undefined) throw unsupportedMediaType();
    let text: string;
    let body: unknown;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new ApiError("INVALID_JSON", "The request body is not valid JSON: it is not UTF-8.");
    }
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError("INVALID_JSON", "The request body is not valid JSON.");
    }
    const problems = strictJsonProblems(text);
    if (problems.length > 0) throw validationError(problems);
    return parsed(c, body, next);
  }),
];

/** Parsed once: the route's validator and the idempotency middleware read it from here. */
function parsed(c: Context<AppEnv>, body: unknown, next: Next) {
  c.req.json = <T>() => Promise.resolve(body as T);
  return next();
}
