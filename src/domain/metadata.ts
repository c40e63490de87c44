/**
 * A candidate's metadata (docs/lifecycle.md), on Stripe's rules: the account's own key-value
 * strings, at most 50 keys of 1–40 characters, values of at most 500. Set at creation; a change
 * merges into what is there, and a key set to "" is removed.
 */
import { characters } from "./text";
import { z } from "@hono/zod-openapi";
import { isJsonObject, jsonKind } from "./json";

export const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;

export type Metadata = Record<string, string>;

/** What a message says it received: the kind of JSON value, and a string's length. */
export function describeValue(value: unknown): string {
  if (typeof value !== "string") return jsonKind(value);
  const length = characters(value);
  return length === 0 ? "an empty string" : `a string of ${length} character${length === 1 ? "" : "s"}`;
}

/** Why a metadata key is refused, or null. No square brackets: the list's `metadata[KEY]=VALUE` filter uses them. */
export function metadataKeyProblem(key: string): string | null {
  const length = characters(key);
  if (length < 1 || length > MAX_METADATA_KEY_LENGTH)
    return `is a key of ${length} characters; a key must be 1 to ${MAX_METADATA_KEY_LENGTH}`;
  return /[[\]]/.test(key) ? "is a key with [ or ] in it; a key must not contain them" : null;
}

/**
 * An object of strings whose keys are metadata keys, passed through untouched (not `z.record`,
 * which copies by assignment and so drops a `__proto__` key): each problem at its key's path.
 */
export const metadataObjectSchema = ({
  keyCountProblem,
  valueProblem,
}: {
  /** Why the object has too many keys, or null. */
  keyCountProblem: (metadata: Record<string, unknown>) => string | null;
  valueProblem: (value: unknown) => string | null;
}) =>
  z
    .custom<Metadata>(isJsonObject, {
      error: (issue) =>
        issue.input === undefined
          ? "is required"
          : `must be an object of string values; received ${describeValue(issue.input)}`,
    })
    .superRefine((metadata, ctx) => {
      const tooMany = keyCountProblem(metadata);
      if (tooMany) ctx.addIssue({ code: "custom", message: tooMany });
      for (const key of Object.keys(metadata)) {
        const problem = metadataKeyProblem(key) ?? valueProblem(metadata[key]);
        if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
      }
    });

/**
 * Metadata as sent: at creation "" means unset, in a change "" removes the key. So the limit of 50
 * counts the keys given a value, which are what a candidate keeps; the keys set to "" have a limit
 * of their own, so a change may remove as many keys as a candidate can hold while it sets others
 * (the object then checks the merged result).
 */
export const MetadataSchema = metadataObjectSchema({
  keyCountProblem: (metadata) => {
    const unset = Object.values(metadata).filter((value) => value === "").length;
    const set = Object.keys(metadata).length - unset;
    if (set > MAX_METADATA_KEYS) return `must have at most ${MAX_METADATA_KEYS} keys with a value; received ${set}`;
    if (unset > MAX_METADATA_KEYS) return `must have at most ${MAX_METADATA_KEYS} keys set to ""; received ${unset}`;
    return null;
  },
  valueProblem: (value) =>
    typeof value !== "string" || characters(value) > MAX_METADATA_VALUE_LENGTH
      ? `must be a string of at most ${MAX_METADATA_VALUE_LENGTH} characters; received ${describeValue(value)}`
      : null,
}).openapi({
  type: "object",
  additionalProperties: { type: "string", maxLength: MAX_METADATA_VALUE_LENGTH },
  maxProperties: 2 * MAX_METADATA_KEYS,
  description:
    `Your own key-value strings: at most ${MAX_METADATA_KEYS} keys of 1–${MAX_METADATA_KEY_LENGTH} characters (no \`[\` or \`]\`), ` +
    `values of at most ${MAX_METADATA_VALUE_LENGTH} characters. Keys set to \`""\` (not set; in a change, removed) count apart, ` +
    `up to ${MAX_METADATA_KEYS} more.`,
  example: { order_id: "ord_8812", region: "eu" },
});

/**
 * `changes` merged into `current`: a key set to "" is removed. The same object when nothing
 * changes. Built with entries, never by assignment, so a key like `__proto__` stays plain data.
 */
export function mergeMetadata(current: Metadata, changes: Metadata): Metadata {
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(changes)) {
    if (value === "") merged.delete(key);
    else merged.set(key, value);
  }
  const same =
    merged.size === Object.keys(current).length &&
    [...merged].every(([key, value]) => Object.hasOwn(current, key) && current[key] === value);
  return same ? current : Object.fromEntries(merged);
}
