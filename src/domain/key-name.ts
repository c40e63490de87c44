/**
 * An API key's name, the same wherever a key is named: the API (/v1/api_keys) and the operator's
 * accounts CLI. Node loads this file too, so relative imports carry their extension.
 */
import { z } from "@hono/zod-openapi";
import { jsonKind } from "./json.ts";
import { characters, notBlank, plainLine, plainLineMessage } from "./text.ts";

export const MAX_KEY_NAME = 100;

/** 1 to 100 characters, counted as Unicode code points (as JSON Schema's `maxLength` counts them), on one line. */
export const KeyNameSchema = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? "is required"
        : `must be a string of 1 to ${MAX_KEY_NAME} characters; received ${jsonKind(issue.input)}`,
  })
  .min(1, { error: `must be 1 to ${MAX_KEY_NAME} characters; received an empty string` })
  .refine(notBlank, { error: "must not be only spaces: say what the key is for", abort: true })
  .refine(plainLine, { error: (issue) => plainLineMessage(issue.input) })
  .refine((name) => characters(name) <= MAX_KEY_NAME, {
    error: (issue) => `must be at most ${MAX_KEY_NAME} characters; received ${characters(issue.input as string)}`,
  });
