/**
 * Bad input in the API's words: zod's issues become VALIDATION_ERROR details, each a sentence
 * naming what was expected and what was received. Importing this module sets zod's messages.
 */
import { jsonKind } from "../domain/json";
import { characters } from "../domain/text";
import { z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import type { Hook } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { validationError, type ErrorDetail } from "./api-error";

export const UNKNOWN_FIELD = "is not a known field";
/** A query parameter given more than once reaches its schema as a list. */
export const GIVEN_TWICE = "is given more than once; give it once";

/** A value as a message quotes it: text in backticks (cut short), a number as written, else its kind. */
export function received(input: unknown): string {
  if (typeof input === "string") {
    const chars = [...input];
    return input === "" ? "an empty string" : `\`${chars.length > 64 ? `${chars.slice(0, 64).join("")}...` : input}\``;
  }
  return typeof input === "number" && Number.isFinite(input) ? String(input) : jsonKind(input);
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
      return `must be ${EXPECTED_TYPE[issue.expected] ?? `a ${issue.expected}`}; received ${issue.expected === "int" ? received(issue.input) : jsonKind(issue.input)}`;
    case "invalid_value":
      if (issue.input === undefined) return "is required";
      return `must be ${issue.values.length === 1 ? "" : "one of "}${listed(issue.values)}; ${got}`;
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const bound = small ? issue.minimum : issue.maximum;
      const input = issue.input;
      if (issue.origin === "string" || issue.origin === "array" || issue.origin === "set") {
        const size = typeof input === "string" ? characters(input) : Array.isArray(input) ? input.length : undefined;
        const unit = issue.origin === "string" ? "character" : "item";
        if (small && Number(bound) === 1) return `must not be empty; ${got}`;
        const wanted = issue.exact ? "exactly" : small ? "at least" : "at most";
        return `must have ${wanted} ${plural(bound, unit)}; received ${size === undefined ? jsonKind(input) : plural(size, unit)}`;
      }
      const wanted =
        issue.inclusive === false ? (small ? "greater than" : "less than") : small ? "at least" : "at most";
      return `must be ${wanted} ${bound}; ${got}`;
    }
    case "invalid_format":
      if (issue.format === "regex") return `must match \`${issue.pattern}\`; ${got}`;
      if (issue.format in AFFIXES)
        return `must ${AFFIXES[issue.format]} \`${String(issue.prefix ?? issue.suffix ?? issue.includes)}\`; ${got}`;
      return `must be ${FORMATS[issue.format] ?? `a valid ${issue.format}`}; ${got}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}; ${got}`;
    case "unrecognized_keys":
      return UNKNOWN_FIELD;
    case "invalid_key":
      return `is not an allowed key: ${issue.issues.map((i) => i.message).join("; ")}`;
    case "invalid_element":
      return `is not an allowed value: ${issue.issues.map((i) => i.message).join("; ")}`;
    case "invalid_union":
      return `matches none of the accepted forms; received ${jsonKind(issue.input)}`;
    default:
      return `is not accepted; ${got}`;
  }
}

z.config({ customError: issueMessage });

const dotted = (path: PropertyKey[]) => path.map(String).join(".");

/**
 * Every problem zod found, one detail each; an unknown key is reported at its own path. A value of
 * the wrong type gets that one detail: zod also runs a length check on whatever has a length, so
 * `["a"]` for a string of 8 or more would add "must have at least 8 items".
 */
export function zodDetails(error: ZodError): ErrorDetail[] {
  const mistyped = new Set(error.issues.filter((i) => i.code === "invalid_type").map((i) => dotted(i.path)));
  return error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: UNKNOWN_FIELD }))
      : issue.code !== "invalid_type" && mistyped.has(dotted(issue.path))
        ? []
        : [{ path: dotted(issue.path), message: issue.message }],
  );
}

/**
 * The validator hook of every route: failures become one VALIDATION_ERROR. A query parameter
 * given twice reaches its schema as an array; the caller is told that, not what an array is not.
 */
export function validationHook(result: { success: boolean; error?: ZodError; target?: string }, c: Context) {
  if (result.success) return;
  const details = zodDetails(result.error!);
  if (result.target !== "query") throw validationError(details);
  const given = c.req.queries(); // all of them: a route may have folded some (candidate-filters.ts)
  const said = new Set<string>();
  const once = details.flatMap((detail) => {
    // An unknown parameter stays unknown, however often it is given.
    if ((given[detail.path]?.length ?? 0) > 1 && detail.message !== UNKNOWN_FIELD) detail.message = GIVEN_TWICE;
    // A metadata filter, folded into one object to validate, is named as it was sent: `metadata[KEY]`.
    detail.path = detail.path.replace(/^metadata\.(.*)$/s, "metadata[$1]");
    const key = `${detail.path}\n${detail.message}`;
    return said.has(key) ? [] : (said.add(key), [detail]);
  });
  throw validationError(once);
}

/**
 * validationHook for a body some of whose rules depend on where the service runs (its env), so no
 * schema can hold them: `more` finds those problems in the body as sent, and they are listed beside
 * the schema's, in one refusal.
 */
export function validationHookWith<E extends Env>(more: (body: unknown, c: Context<E>) => ErrorDetail[]) {
  // Generic, so that a route's handler keeps the types its schemas give it.
  return <T, P extends string>(result: Parameters<Hook<T, E, P, undefined>>[0], c: Context<E, P>): undefined => {
    // The body as sent: zod's validator hands it on beside a failure too.
    const extra = result.target === "json" ? more((result as { data?: unknown }).data, c) : [];
    if (extra.length > 0) throw validationError([...(result.success ? [] : zodDetails(result.error)), ...extra]);
    validationHook(result, c);
  };
}
