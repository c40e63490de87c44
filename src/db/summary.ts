/**
 * Typed D1 queries for the billing summary (docs/billing.md, migrations/0005_billing.sql). They
 * return what D1 knows, by settled status (docs/candidate-object.md, "Glossary"); domain/billing.ts
 * makes it exact at the instant.
 */
import type { FinalStatus, Status } from "../domain/timeline";
import type { InstantRange } from "./candidates";
import { bindNamed } from "./sql-params";
import { SETTLED_AT_NOW_SQL, unsettledSelects } from "./status-at-sql";
import type { D1 } from "../shards";

/** Candidates in one settled status and scheduled outcome, with their prices summed at one scale. */
export interface TotalsRow {
  customer_uuid: string;
  settled_status: Status;
  final_status: FinalStatus;
  price_scale: number;
  count: number;
  units_hi: number;
  units_lo: number;
}

/** A candidate not in its settled status now (see unsettledSelects): its status now is computed. */
export interface LaggingRow {
  customer_uuid: string;
  settled_status: Status;
  final_status: FinalStatus;
  created_at: number;
  open_until: number;
  pending_until: number;
  price_units: string;
  price_scale: number;
}

export interface SummaryQuery {
  customerUuid?: string;
  range?: InstantRange;
  /** Per customer, a page of them in customer_uuid order. */
  byCustomer?: { after?: string; limit: number };
}

const SUMS = "COUNT(*) AS count, SUM(price_units / 100000000) AS units_hi, SUM(price_units % 100000000) AS units_lo";

/**
 * The two queries the summary adds up, with their parameters: `settled`, the totals by settled
 * status (without a range: the kept totals, every row included; with one: the rows in the range
 * and in their settled status now, read off an index), and the rows not in their settled status
 * now (few), whose status is computed.
 */
export function summaryQueries(accountId: string, q: SummaryQuery, now: number): [settled: Query, lagging: Query] {
  const params: Record<string, string | number> = { account: accountId, now };
  if (q.customerUuid !== undefined) params.customer = q.customerUuid;
  const customerFilter = q.customerUuid === undefined ? [] : ["customer_uuid = :customer"];
  if (q.range?.gte !== undefined) params.gte = q.range.gte;
  if (q.range?.lt !== undefined) params.lt = q.range.lt;
  const ranged = params.gte !== undefined || params.lt !== undefined;
  if (q.byCustomer) {
    params.after = q.byCustomer.after ?? "";
    params.limit = q.byCustomer.limit + 1;
  }

  let settled: string;
  if (!ranged) {
    // Kept by triggers per account ('') and per customer.
    const customers = q.byCustomer
      ? [
          `customer_uuid IN (SELECT DISTINCT customer_uuid FROM candidate_totals WHERE account_id = :account
            AND customer_uuid > :after ${q.customerUuid === undefined ? "" : "AND customer_uuid = :customer"}
            ORDER BY customer_uuid LIMIT :limit)`,
        ]
      : [q.customerUuid === undefined ? "customer_uuid = ''" : "customer_uuid = :customer"];
    settled = `SELECT customer_uuid, settled_status, final_status, price_scale, count, units_hi, units_lo
               FROM candidate_totals WHERE account_id = :account AND ${customers.join(" AND ")} AND count > 0`;
  } else {
    const inRange = [
      "account_id = :account",
      ...customerFilter,
      "settled_status IN ('OPEN', 'PENDING', 'CONFIRMED', 'FAILED')",
      ...(params.gte === undefined ? [] : ["settled_since >= :gte"]),
      ...(params.lt === undefined ? [] : ["settled_since < :lt"]),
      SETTLED_AT_NOW_SQL,
    ].join(" AND ");
    settled = q.byCustomer
      ? `SELECT customer_uuid, settled_status, final_status, price_scale, ${SUMS} FROM candidates
         WHERE ${inRange} AND customer_uuid IN (
           -- A page of customers with candidates in the range, walked in customer order.
           SELECT DISTINCT customer_uuid FROM candidates INDEXED BY candidates_customer_billing
           WHERE ${inRange} AND customer_uuid > :after ORDER BY customer_uuid LIMIT :limit)
         GROUP BY customer_uuid, settled_status, final_status, price_scale`
      : `SELECT '' AS customer_uuid, settled_status, final_status, price_scale, ${SUMS} FROM candidates
         WHERE ${inRange} GROUP BY settled_status, final_status, price_scale`;
  }
  // Price units as text: a price written before its bounds were checked may exceed what a double holds.
  const columns = `customer_uuid, settled_status, final_status, created_at, open_until, pending_until,
                   CAST(price_units AS TEXT) AS price_units, price_scale`;
  const unsettled = unsettledSelects(
    columns,
    ["account_id = :account", ...customerFilter],
    q.customerUuid !== undefined,
  ).join(" UNION ALL ");
  return [
    [settled, params],
    [unsettled, params],
  ];
}

type Query = [sql: string, params: Record<string, string | number>];

/** The summary's rows, in one D1 round trip (see summaryQueries). */
export async function summaryRows(db: D1, accountId: string, q: SummaryQuery, now: number) {
  const [[settledSql, params], [laggingSql]] = summaryQueries(accountId, q, now);
  const [settledRows, laggingRows] = await db.batch([
    bindNamed(db, settledSql, params),
    bindNamed(db, laggingSql, params),
  ]);
  return { settled: settledRows.results as TotalsRow[], lagging: laggingRows.results as LaggingRow[] };
}
