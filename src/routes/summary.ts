/** GET /v1/summary (docs/billing.md): what the account bills, exact at the request's instant. */
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import { summaryRows, type SummaryQuery } from "../db/summary";
import { tally, EMPTY_SUMMARY, type Counted, type Lagging } from "../domain/billing";
import { isoTime, isoTimeOrNull } from "../domain/iso-time";
import { createRouter, errorResponses, jsonResponse, READS_ACCOUNT_DATA } from "./shared/openapi";
import { CursorSchema, PageLimitSchema, rangesInOrder } from "./shared/params";
import { LIST_FILTERS } from "./shared/candidate-filters";
import { timestamp } from "../models";
import { summaryExample } from "./shared/examples";
import { accountDb } from "../account-db";

const TotalSchema = z.object({
  count: z.number().int(),
  amount: z.string().openapi({ description: "The exact decimal sum of the candidates' prices.", example: "346.5" }),
});
const TotalsSchema = z.object({
  OPEN: TotalSchema,
  PENDING: TotalSchema.extend({
    scheduled_confirmed: TotalSchema.openapi({ description: "Those scheduled to become CONFIRMED." }),
  }),
  CONFIRMED: TotalSchema,
  FAILED: TotalSchema,
});
const SummarySchema = TotalsSchema.extend({
  as_of: timestamp("The instant the summary is exact at."),
  customer_uuid: z.string().nullable(),
  status_since_gte: timestamp("The range's start, if any.").nullable(),
  status_since_lt: timestamp("The range's end, if any.").nullable(),
}).openapi("Summary");
const CustomerSummarySchema = TotalsSchema.extend({ customer_uuid: z.string() }).openapi("CustomerSummary");

const SummaryQuerySchema = z
  .strictObject({
    // The list's own filters: the summary adds up exactly what the list with them shows.
    customer_uuid: LIST_FILTERS.customer_uuid,
    status_since_gte: LIST_FILTERS.status_since_gte,
    status_since_lt: LIST_FILTERS.status_since_lt,
    group_by: z
      .enum(["customer_uuid"])
      .optional()
      .openapi({ description: "One summary per customer, ordered by customer_uuid, paged.", example: "customer_uuid" }),
    after: CursorSchema.optional().openapi({
      description: "With group_by: the `next_cursor` of the previous page (a customer_uuid).",
      example: "cust_42",
    }),
    limit: PageLimitSchema.optional().openapi({ description: "With group_by: customers per page (default 50)." }),
  })
  .superRefine((q, ctx) => {
    rangesInOrder(q, ctx);
    for (const key of ["after", "limit"] as const) {
      if (q[key] !== undefined && q.group_by === undefined)
        ctx.addIssue({ code: "custom", path: [key], message: "is used only with group_by=customer_uuid" });
    }
  });

const summary = createRoute("billing:read", {
  method: "get",
  path: "/",
  operationId: "getSummary",
  tags: ["Billing"],
  summary: "What the account bills, exact now (extension)",
  description:
    "Per status: how many candidates are in it now with `status_since` in the range, and the exact decimal sum of their prices. " +
    "`CONFIRMED` with a month's range is that month's bill. With `group_by=customer_uuid`, one summary per customer.",
  ...READS_ACCOUNT_DATA,
  request: { query: SummaryQuerySchema },
  responses: {
    200: jsonResponse(
      "The summary; with `group_by`, `{ data, next_cursor }`.",
      z.union([SummarySchema, z.object({ data: z.array(CustomerSummarySchema), next_cursor: z.string().nullable() })]),
      summaryExample,
      { bookmark: true },
    ),
    ...errorResponses("VALIDATION_ERROR"),
  },
});

/** SQLite's order of text (its UTF-8 bytes), which is code point order; JS `<` compares UTF-16 units. */
function byCodePoint(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

export const summaryRouter = createRouter().openapi(summary, async (c) => {
  const q = c.req.valid("query");
  const now = Date.now();
  const range = { gte: q.status_since_gte, lt: q.status_since_lt };
  const grouped = q.group_by === "customer_uuid";
  const limit = q.limit ?? 50;
  const query: SummaryQuery = {
    customerUuid: q.customer_uuid,
    range,
    ...(grouped ? { byCustomer: { after: q.after, limit } } : {}),
  };
  const rows = await summaryRows(accountDb(c), c.get("accountId"), query, now);
  const ranged = range.gte !== undefined || range.lt !== undefined;
  const key = (customer: string) => (grouped ? customer : "");

  const counted: Counted[] = rows.settled.map((r) => ({
    ...r,
    customer_uuid: key(r.customer_uuid),
    status: r.settled_status,
    scale: r.price_scale,
  }));
  // Lagging candidates of customers beyond this page are another page's.
  const countedCustomers = [...new Set(counted.map((r) => r.customer_uuid))].sort(byCodePoint);
  const cutoff = grouped && countedCustomers.length > limit ? countedCustomers[limit] : undefined;
  const lagging: Lagging[] = rows.lagging
    .filter(
      (r) =>
        !grouped ||
        ((q.after === undefined || byCodePoint(r.customer_uuid, q.after) > 0) &&
          (cutoff === undefined || byCodePoint(r.customer_uuid, cutoff) <= 0)),
    )
    .map((r) => ({
      customer_uuid: key(r.customer_uuid),
      settled_status: r.settled_status,
      timeline: {
        createdAt: r.created_at,
        openUntil: r.open_until,
        pendingUntil: r.pending_until,
        finalStatus: r.final_status,
      },
      price: { units: BigInt(r.price_units), scale: r.price_scale },
    }));
  const totals = tally(counted, lagging, { countedIncludesLagging: !ranged, range, now });

  if (!grouped) {
    return c.json(
      {
        as_of: isoTime(now),
        customer_uuid: q.customer_uuid ?? null,
        status_since_gte: isoTimeOrNull(range.gte),
        status_since_lt: isoTimeOrNull(range.lt),
        ...(totals.get("") ?? EMPTY_SUMMARY),
      },
      200,
    );
  }
  const customers = [...totals.keys()]
    .filter((customer) => !ranged || Object.values(totals.get(customer)!).some((t) => t.count > 0))
    .sort(byCodePoint);
  const page = customers.slice(0, limit);
  const data = page.map((customer) => ({ customer_uuid: customer, ...totals.get(customer)! }));
  return c.json({ data, next_cursor: customers.length > limit ? page[page.length - 1] : null }, 200);
});
