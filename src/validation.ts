/**
 * Turning bad input into VALIDATION_ERROR details, and the guards every JSON body passes before
 * the route's own schema sees it (media type, size, JSON syntax, nesting depth, Unicode).
 */
import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { ApiError, type ErrorDetail } from "./errors";
import type { AppEnv } from "./app-env";

export const MAX_BODY_BYTES = 64 * 1024;
/** Deeper JSON than this is refused before any code walks it recursively. */
export const MAX_JSON_DEPTH = 64;

// A missing field reads better as "is required" than as "expected string, received undefined".
z.config({
  customError: (issue) => (issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined),
});

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

/** Media type, size, syntax, depth and Unicode checks for POST and PATCH bodies: route middleware, in order. */
export const jsonBody = [
  createMiddleware<AppEnv>(async (c, next) => {
    if (!JSON_MEDIA_TYPE.test(c.req.header("Content-Type") ?? "")) {
      throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as JSON with `Content-Type: application/json`.");
    }
    await next();
  }),
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    },
  }),
  createMiddleware<AppEnv>(async (c, next) => {
    let body: unknown;
    try {
      body = await c.req.json(); // cached by Hono for the route's validator
    } catch {
      throw new ApiError("INVALID_JSON", "The request body is not valid JSON.");
    }
    const problems = bodyProblems(body);
    if (problems.length > 0) throw validationError(problems);
    await next();
  }),
];

/** More than this many problems in one body are not all listed. */
const MAX_BODY_PROBLEMS = 50;

/**
 * The parts of a parsed body no code should walk or store: nesting deeper than MAX_JSON_DEPTH;
 * a number JSON.parse could not hold (`1e999` parses to Infinity, which JSON cannot write back);
 * a string (or key) with a lone surrogate, which is not Unicode text (I-JSON, RFC 7493) and would
 * not survive storage as text unchanged. Iterative: depth is untrusted.
 */
function bodyProblems(root: unknown): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const stack: [unknown, string[]][] = [[root, []]];
  while (stack.length > 0 && problems.length < MAX_BODY_PROBLEMS) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string" && !value.isWellFormed()) problems.push({ path: dotted(path), message: NOT_UNICODE });
    if (typeof value === "number" && !Number.isFinite(value)) problems.push({ path: dotted(path), message: NOT_FINITE });
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= MAX_JSON_DEPTH) {
      problems.push({ path: dotted(path), message: `nests deeper than ${MAX_JSON_DEPTH} levels` });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (!key.isWellFormed()) problems.push({ path: dotted(path), message: `has a key that ${NOT_UNICODE}` });
      else stack.push([child, [...path, key]]);
    }
  }
  return problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const NOT_FINITE = "is not a finite number: a JSON number must fit a 64-bit float (at most about 1.8e308)";
const NOT_UNICODE = "is not well-formed Unicode: it holds a lone surrogate";
