/**
 * The guards every JSON body passes before the route's own schema sees it, as route middleware:
 * media type, size, JSON syntax, then strict-json.ts (nesting depth, Unicode, numbers kept
 * exactly, no duplicate keys). A body refused there is also given to the route's schema, so the
 * one answer lists every problem.
 */
import type { ZodType } from "zod";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { Context, Next } from "hono";
import { ApiError, validationError, type ErrorDetail } from "./errors/api-error";
import { zodDetails } from "./errors/zod-issues";
import { KEY_NOT_UNICODE, MAX_PROBLEMS, NESTS_TOO_DEEP, strictJsonProblems } from "./strict-json";
import type { AppEnv } from "./app-env";

export const MAX_BODY_BYTES = 64 * 1024;
/** POST /v1/events/batch: up to 100 events of up to 8 KiB each. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
/** JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, never replaced with U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const unsupportedMediaType = () =>
  new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as JSON with `Content-Type: application/json`.");

/** A compressed body (RFC 9110 §15.5.16: 415, with the codings accepted): read as it is, it would not be JSON. */
const unsupportedEncoding = () =>
  new ApiError(
    "UNSUPPORTED_MEDIA_TYPE",
    "Send the request body uncompressed: no `Content-Encoding` is supported.",
    undefined,
    { "Accept-Encoding": "identity" },
  );

/**
 * Media type, size, syntax and I-JSON checks for POST and PATCH bodies: route middleware, in
 * order. An `optional` body may be left out: an empty body (whatever a proxy on the way made of
 * it: no body, or a stream of no bytes) reads as `{}`. `schema`: the route's, whose problems a
 * body refused here lists too.
 */
export const jsonBody = ({
  maxBytes = MAX_BODY_BYTES,
  optional = false,
  schema,
}: { maxBytes?: number; optional?: boolean; schema?: ZodType } = {}) => [
  createMiddleware<AppEnv>(async (c, next) => {
    const contentType = c.req.header("Content-Type");
    // Without a Content-Type, an optional body is judged once read: empty, or refused.
    if (contentType === undefined ? !optional : !JSON_MEDIA_TYPE.test(contentType)) throw unsupportedMediaType();
    const encoding = c.req.header("Content-Encoding")?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== "" && encoding !== "identity") throw unsupportedEncoding();
    if (contentType !== undefined) asPlainJson(c, contentType);
    await next();
  }),
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError(
        "PAYLOAD_TOO_LARGE",
        `The request body is larger than ${maxBytes} bytes (${maxBytes / 1024} KiB).`,
      );
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
    // A byte-order mark alone (the decoder drops it) is no body either.
    if (text === "" && optional) return parsed(c, {}, next);
    try {
      body = JSON.parse(text);
    } catch (syntax) {
      throw new ApiError("INVALID_JSON", `The request body is not valid JSON${whereJsonFails(text, syntax)}.`);
    }
    const problems = strictJsonProblems(text);
    if (problems.length > 0) {
      const more = problems.length >= MAX_PROBLEMS ? `at most ${MAX_PROBLEMS} problems of its JSON are listed` : "";
      throw validationError(await withSchemaProblems(problems, body, schema), more);
    }
    return parsed(c, body, next);
  }),
];

/**
 * The body's I-JSON problems, then those the route's schema finds elsewhere in it (a problem at or
 * under a path already listed is that problem again). A body the scan did not read to its end (too
 * many problems, or nested too deep past them) is not walked: it may nest deeper than a walk can go.
 */
async function withSchemaProblems(problems: ErrorDetail[], body: unknown, schema?: ZodType) {
  if (!schema || problems.length >= MAX_PROBLEMS || problems.some((p) => p.message === NESTS_TOO_DEEP)) return problems;
  const result = await schema.safeParseAsync(body);
  if (result.success) return problems;
  // A problem at a value (or a duplicate key) is the same problem as the schema's at or under it. A
  // key that is not Unicode is reported at its object, naming no key: it covers nothing else there,
  // and the schema's problems that would name it (an unknown field) are left out.
  const values = problems.filter((p) => p.message !== KEY_NOT_UNICODE);
  const listed = (path: string) => values.some((p) => path === p.path || path.startsWith(`${p.path}.`));
  return [
    ...problems,
    ...zodDetails(result.error).filter((detail) => detail.path.isWellFormed() && !listed(detail.path)),
  ];
}

/**
 * The route's validator (zod-openapi) takes `application/json` only as `; name=value` parameters
 * may follow it, and refuses in a library's words the other spellings RFC 9110 allows, which this
 * guard took (a space before `;`, an empty parameter): from here on the request says just that.
 */
function asPlainJson(c: Context<AppEnv>, contentType: string) {
  if (contentType === "application/json") return;
  const headers = new Headers(c.req.raw.headers);
  headers.set("Content-Type", "application/json");
  c.req.raw = new Request(c.req.raw, { headers });
}

/** Parsed once: the route's validator and the idempotency middleware read it from here. */
function parsed(c: Context<AppEnv>, body: unknown, next: Next) {
  c.req.json = <T>() => Promise.resolve(body as T);
  return next();
}

/**
 * Where JSON.parse stopped, in the service's words: the parser's message is the runtime's, so
 * only its facts are taken (the position, or the character it met) and the place is described
 * from the text itself.
 */
function whereJsonFails(text: string, error: unknown): string {
  const message = error instanceof SyntaxError ? error.message : "";
  if (text === "") return ": it is empty";
  if (/^[\t\n\r ]+$/.test(text)) return ": it holds only white space";
  const position = /at position (\d+)/.exec(message);
  const at = position ? Number(position[1]) : undefined;
  if (/end of JSON input/i.test(message) || (at !== undefined && at >= text.length))
    return ": it ends before its value is complete";
  if (at === undefined) {
    // "Unexpected token 'x', ... is not valid JSON": the character, but not where. One that JSON
    // allows nowhere outside a string is where it first stands outside one; V8 names one outside
    // the BMP by its first UTF-16 half, and the text there has the whole of it.
    const token = /^Unexpected token '(.+?)',/su.exec(message)?.[1];
    if (token === undefined || token.length !== 1) return "";
    const first = MAY_STAND_OUTSIDE_STRINGS.test(token) ? -1 : firstOutsideStrings(text, token);
    if (first === -1) return `: unexpected ${shownCharacter(token)}`;
    return `: unexpected ${shownCharacter(String.fromCodePoint(text.codePointAt(first)!))} at ${placeOf(text, first)}`;
  }
  const found = shownCharacter(String.fromCodePoint(text.codePointAt(at)!));
  const place = placeOf(text, at);
  return /after JSON/i.test(message)
    ? `: something follows its value, at ${place} (${found})`
    : `: unexpected ${found} at ${place}`;
}

/** Characters JSON text may hold outside its strings: white space, punctuation, numbers, true, false, null. */
const MAY_STAND_OUTSIDE_STRINGS = /^[\t\n\r {}[\]:,"0-9+\-.eEtrufalsn]$/;

/** Where `character` (one UTF-16 code unit) first stands outside a JSON string in `text`; -1 if nowhere. */
function firstOutsideStrings(text: string, character: string): number {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const unit = text[i];
    if (inString) {
      if (unit === "\\") i++;
      else if (unit === '"') inString = false;
    } else if (unit === '"') inString = true;
    else if (unit === character) return i;
  }
  return -1;
}

/** "line 2, column 5" of a UTF-16 offset: columns count characters (code points), as an editor shows them. */
function placeOf(text: string, at: number): string {
  const before = text.slice(0, at).split("\n");
  return `line ${before.length}, column ${[...before[before.length - 1]].length + 1}`;
}

/** A printable ASCII character in backticks; any other as its code point (U+000A). */
const shownCharacter = (character: string) =>
  /^[\x21-\x7e]$/.test(character)
    ? `\`${character}\``
    : `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
