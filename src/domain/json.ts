import { z } from "@hono/zod-openapi";

/** A JSON value. Typed so it can cross Durable Object RPC, which carries only serialisable types. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * Any JSON value. Request bodies come from JSON.parse, so whatever this accepts is already JSON;
 * it is declared as `unknown` because the OpenAPI generator cannot walk a recursive JSON schema.
 */
export const JsonValueSchema = z.unknown().openapi({ description: "Any JSON value." }) as unknown as z.ZodType<Json>;
