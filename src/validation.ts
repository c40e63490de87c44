/**
 * Turning bad input into VALIDATION_ERROR details, and the guards every JSON body passes before
 * the route's own schema sees it (media type, size, JSON syntax, then strict-json.ts: nesting
 * depth, Unicode, numbers kept exactly, no duplicate keys).
 */
import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { ApiError, type ErrorDetail } from "./errors";
import { strictJsonProblems } from "./strict-json";
import type { AppEnv } from "./app-env";

export const MAX_BODY_BYTES = 64 * 1024;
/** POST /v1/events/batch: up to 100 events of up to 8 KiB each. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

// A missing field reads better as "is required" than as "expected string, received undefined"
// (or, for a field with a fixed set of values, "Invalid option").
z.config({
  customError: (issue) =>
    (issue.code === "invalid_type" || issue.code === "invalid_value") && issue.input === undefined ? "is required" : undefined,
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

/**
 * Media type, size, syntax and I-JSON checks for POST and PATCH bodies: route middleware, in
 * order. An `optional` body may be left out entirely (no Content-Type either): it reads as `{}`.
 */
export const jsonBody = ({ maxBytes = MAX_BODY_BYTES, optional = false }: { maxBytes?: number; optional?: boolean } = {}) => [
  createMiddleware<AppEnv>(async (c, next) => {
    const absent = optional && c.req.raw.body === null && c.req.header("Content-Type") === undefined;
    if (!absent && !JSON_MEDIA_TYPE.test(c.req.header("Content-Type") ?? "")) {
      throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as JSON with `Content-Type: application/json`.");
    }
    await next();
  }),
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxBytes} bytes (${maxBytes / 1024} KiB).`);
    },
  }),
  createMiddleware<AppEnv>(async (c, next) => {
    const text = optional && c.req.raw.body === null ? "{}" : await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError("INVALID_JSON", "The request body is not valid JSON.");
    }
    const problems = strictJsonProblems(text);
    if (problems.length > 0) throw validationError(problems);
    // Parsed once: the route's validator and the idempotency middleware read it from here.
    c.req.json = <T>() => Promise.resolve(body as T);
    await next();
  }),
];

