/**
 * The filters of the candidate list, shared by the list and the export: one definition, so both
 * select the same candidates.
 */
import { characters } from "../../domain/text";
import { z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { describeValue, MAX_METADATA_VALUE_LENGTH, metadataObjectSchema } from "../../domain/metadata";
import { STATUSES } from "../../domain/timeline";
import type { CandidateListQuery } from "../../db/candidates";
import type { AppEnv } from "../../app-env";
import { BOUND_RULES, InstantSchema } from "./params";
import { GIVEN_TWICE } from "../../errors/zod-issues";

/** At most this many `metadata[KEY]=VALUE` filters on one list. */
export const MAX_METADATA_FILTERS = 10;

/**
 * `metadata[KEY]=VALUE` query parameters, folded into one `metadata` object before the query is
 * validated, so the strict query schema sees them as one known parameter (route middleware).
 */
export const foldMetadataQuery = createMiddleware<AppEnv>(async (c, next) => {
  // No prototype: a parameter named `__proto__` stays a parameter (and is refused as unknown).
  const folded: Record<string, string[] | Record<string, string | string[]>> = Object.create(null);
  const metadata: [string, string | string[]][] = [];
  for (const [name, values] of Object.entries(c.req.queries())) {
    const key = /^metadata\[(.*)\]$/s.exec(name)?.[1];
    if (key === undefined) folded[name] = values;
    else metadata.push([key, values.length === 1 ? values[0] : values]);
  }
  // A plain `metadata=...` beside them is kept, and refused, rather than silently dropped.
  if (metadata.length > 0 && !("metadata" in folded)) folded.metadata = Object.fromEntries(metadata);
  c.req.queries = (() => folded) as typeof c.req.queries;
  await next();
});

const MetadataFilterSchema = metadataObjectSchema({
  keyCountProblem: (filters) => {
    const count = Object.keys(filters).length;
    return count > MAX_METADATA_FILTERS ? `must have at most ${MAX_METADATA_FILTERS} keys; received ${count}` : null;
  },
  valueProblem: (value) =>
    typeof value !== "string"
      ? GIVEN_TWICE // a query's values are text: anything else is the same key given again
      : value === "" || characters(value) > MAX_METADATA_VALUE_LENGTH
        ? `must be 1 to ${MAX_METADATA_VALUE_LENGTH} characters; received ${describeValue(value)}`
        : null,
}).openapi({
  type: "object",
  additionalProperties: { type: "string" },
  param: { style: "deepObject", explode: true },
  description:
    "Extension. `metadata[KEY]=VALUE`: only candidates whose metadata has exactly this value (several: all must hold).",
  example: { order_id: "ord_8812" },
});

/** The filter parameters, spread into a query schema. */
export const LIST_FILTERS = {
  status: z
    .enum(STATUSES)
    .optional()
    .openapi({ description: "Only candidates with this status now.", example: "PENDING" }),
  customer_uuid: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ description: "Only this customer's candidates.", example: "cust_42" }),
  status_since_gte: InstantSchema.optional().openapi({
    description: "Extension. Only candidates whose current status began at or after this instant." + BOUND_RULES,
    example: "2026-11-01T00:00:00.000Z",
  }),
  status_since_lt: InstantSchema.optional().openapi({
    description: "Extension. Only candidates whose current status began before this instant." + BOUND_RULES,
    example: "2026-12-01T00:00:00.000Z",
  }),
  activity_ends_gte: InstantSchema.optional().openapi({
    description:
      "Extension. Only candidates whose activity window ends (`activity_ends_at`) at or after this instant. With " +
      "`status=OPEN` and `activity_ends_lt`: the candidates that will time out by then unless fulfilled." +
      BOUND_RULES,
    example: "2026-11-22T16:00:00.000Z",
  }),
  activity_ends_lt: InstantSchema.optional().openapi({
    description:
      "Extension. Only candidates whose activity window ends (`activity_ends_at`) before this instant." + BOUND_RULES,
    example: "2026-11-23T16:00:00.000Z",
  }),
  metadata: MetadataFilterSchema.optional(),
  candidate_alias_prefix: z.string().min(1).max(255).optional().openapi({
    description: "Extension. Only candidates whose alias begins with this (exactly: case and every character count).",
    example: "order-2026-11",
  }),
};

type Filters = { [K in keyof typeof LIST_FILTERS]?: z.infer<(typeof LIST_FILTERS)[K]> };

/** The filters, as the index query takes them. */
export const listFilters = (query: Filters): Omit<CandidateListQuery, "limit" | "after"> => ({
  status: query.status,
  customerUuid: query.customer_uuid,
  statusSince: { gte: query.status_since_gte, lt: query.status_since_lt },
  activityEnds: { gte: query.activity_ends_gte, lt: query.activity_ends_lt },
  metadata: Object.entries(query.metadata ?? {}),
  aliasPrefix: query.candidate_alias_prefix,
});
