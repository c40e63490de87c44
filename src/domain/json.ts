import { z } from "@hono/zod-openapi";

/** A JSON value. Typed so it can cross Durable Object RPC, which carries only serialisable types. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * Any JSON value. Request bodies come from JSON.parse, so whatever this accepts is already JSON;
 * it is declared as `unknown` because the OpenAPI generator cannot walk a recursive JSON schema.
 * It passes the parsed value through untouched, so every key (`__proto__` included) stays data.
 */
export const JsonValueSchema = z.unknown().openapi({ description: "Any JSON value." }) as unknown as z.ZodType<Json>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A JSON object with any keys, passed through untouched. Not `z.record`, which copies the object
 * by assignment and so silently drops a `__proto__` key.
 */
export const JsonObjectSchema = z
  .custom<JsonObject>(isJsonObject, { message: "must be an object" })
  .openapi({ type: "object", additionalProperties: {} });

/** A request body nests at most this many levels of objects and arrays (strict-json.ts refuses more). */
export const MAX_JSON_DEPTH = 64;

/** An event's `value`, serialised, takes at most this many bytes (UTF-8). */
export const MAX_EVENT_VALUE_BYTES = 8 * 1024;

/** Whether `text` takes more than `max` bytes as UTF-8; encodes it only when its length can't tell. */
export function longerThanUtf8(text: string, max: number): boolean {
  // A UTF-16 code unit takes 1 to 3 bytes (a surrogate pair 4 for its 2 units).
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return new TextEncoder().encode(text).length > max;
}

/** How deep a JSON value nests: 0 for a scalar, 1 for an object or array of scalars, and so on. */
export function nestingOf(value: Json): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, nestingOf(child));
  return 1 + deepest;
}

declare const encodes: unique symbol;
/**
 * JSON text of a `T`. Responses are serialised once, where the data is: stored JSON (event
 * values, contracts) is spliced in as the text it is stored as, never parsed, copied or
 * serialised again on its way out.
 */
export type JsonText<T> = string & { readonly [encodes]: T };
/** JSON text of a `T`, streamed. */
export type JsonStream<T> = ReadableStream<Uint8Array> & { readonly [encodes]: T };

/** What sort of JSON value something is, as an error message names it ("an array", "null", "a boolean"). */
export function jsonKind(input: unknown): string {
  if (input === undefined) return "nothing";
  if (input === null) return "null";
  if (Array.isArray(input)) return input.length === 0 ? "an empty array" : "an array";
  if (typeof input === "number") return Number.isFinite(input) ? "a number" : String(input);
  if (typeof input === "boolean") return "a boolean";
  if (typeof input === "object") return "an object";
  return `a ${typeof input}`;
}
