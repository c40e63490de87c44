/**
 * GET /v1/candidates/export (docs/billing.md): every candidate the list's filters select, as CSV,
 * in list order, exact at the request's instant. Streamed page by page as the reader takes it, so
 * memory stays the same however many candidates there are.
 */
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import { listCandidates, type ListedCandidate } from "../db/candidates";
import { DecimalSum, decimalParts } from "../domain/decimal";
import { csvLine } from "../domain/csv";
import { isoTime } from "../domain/iso-time";
import { candidateFields } from "../candidate/record";
import type { Contract } from "../domain/contract";
import { foldMetadataQuery, LIST_FILTERS, listFilters } from "./shared/candidate-filters";
import { createRouter, errorResponses, jsonResponse, READS_ACCOUNT_DATA } from "./shared/openapi";
import { rangesInOrder } from "./shared/params";
import { accountDb } from "../account-db";

/** Rows read from the index per query: a few hundred kilobytes at most in memory at once. */
const EXPORT_PAGE_ROWS = 500;

const COLUMNS = [
  "candidate_alias",
  "customer_uuid",
  "status",
  "status_since",
  "scheduled_outcome",
  "price",
  "activity_ends_at",
  "review_ends_at",
  "created_at",
  "schema_id",
  "metadata",
] as const;

const ExportQuery = z.strictObject(LIST_FILTERS).superRefine(rangesInOrder);

/** A candidate's CSV record as of `now`: what the list shows, the price in plain decimal notation. */
function exportLine(c: ListedCandidate, now: number) {
  const view = candidateFields(c, now);
  const { price } = JSON.parse(c.contract) as Contract;
  return csvLine([
    view.candidate_alias,
    view.customer_uuid,
    view.status,
    view.status_since,
    view.scheduled_outcome,
    new DecimalSum().add(decimalParts(price)).toString(),
    view.activity_ends_at,
    view.review_ends_at,
    view.created_at,
    view.schema_id,
    JSON.stringify(view.metadata),
  ]);
}

const exportRoute = createRoute("candidates:read", {
  method: "get",
  path: "/",
  operationId: "exportCandidates",
  tags: ["Candidates"],
  summary: "Export candidates as CSV (extension)",
  description:
    "Every candidate the filters select (the list's filters, without paging), newest first, exact at the instant of " +
    "the request: RFC 4180 CSV in UTF-8 with a header row. `price` is written in plain decimal notation, exactly as " +
    "stored; `metadata` as JSON. Streamed, so a large export starts at once.",
  middleware: [foldMetadataQuery],
  ...READS_ACCOUNT_DATA,
  request: { query: ExportQuery },
  responses: {
    200: {
      ...jsonResponse("The CSV file.", z.string(), undefined, { bookmark: true }),
      content: {
        "text/csv": {
          schema: z.string().openapi({ format: "binary" }),
          example:
            `${COLUMNS.join(",")}\r\n` +
            `order-2026-0001,cust_42,PENDING,2026-11-22T10:15:00.000Z,CONFIRMED,49.5,2026-11-22T10:15:00.000Z,2026-11-23T10:15:00.000Z,2026-11-22T10:00:00.000Z,,"{""order_id"":""ord_8812""}"\r\n`,
        },
      },
    },
    ...errorResponses("VALIDATION_ERROR"),
  },
});

export const candidatesExportRouter = createRouter().openapi(exportRoute, async (c) => {
  const filters = listFilters(c.req.valid("query"));
  const db = accountDb(c);
  const accountId = c.get("accountId");
  const now = Date.now();
  const encoder = new TextEncoder();
  const pageAfter = (after: string | undefined) =>
    listCandidates(db, accountId, { ...filters, after, limit: EXPORT_PAGE_ROWS }, now);
  // The first page is read before the answer starts, so its Bookmark header is the session's after
  // that read; the later pages go through the same session, never older than it.
  let first: Awaited<ReturnType<typeof pageAfter>> | undefined = await pageAfter(undefined);
  let after: string | undefined;
  let done = false;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(csvLine([...COLUMNS])));
      },
      // One page per pull: the next is read only when the reader has taken this one.
      async pull(controller) {
        if (done) return controller.close();
        const page = first ?? (await pageAfter(after));
        first = undefined;
        controller.enqueue(encoder.encode(page.records.map((record) => exportLine(record, now)).join("")));
        after = page.nextCursor ?? undefined;
        done = page.nextCursor === null;
      },
    },
    { highWaterMark: 0 },
  );
  const filename = `candidates-${isoTime(now).slice(0, 19).replaceAll(":", "")}Z.csv`;
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${filename}"`,
    "Cache-Control": "no-store",
  }) as never;
});
