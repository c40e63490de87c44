/**
 * Bench data: the contract every bench candidate carries, and candidate index rows written
 * straight into D1 (a list, a summary or an export reads only the index).
 */
import { uuidv7 } from "uuidv7";

export const BENCH_CONTRACT = {
  price: 25,
  activity_window: 30 * 86_400,
  review_window: 86_400,
  fulfillment_condition: {
    all: [
      { event: "purchase", field: "total", gte: 100 },
      { event: "review", match: { stars: 5 } },
    ],
  },
  timeout_outcome: "fail",
};

/** The status seeded candidate `i` of `count` is in, as of now. */
export type StatusMix = (i: number, count: number) => "OPEN" | "PENDING" | "CONFIRMED" | "FAILED";
/** A quarter each OPEN, PENDING, CONFIRMED and FAILED. */
export const EVEN_MIX: StatusMix = (i) => (["OPEN", "PENDING", "CONFIRMED", "FAILED"] as const)[i % 4];
/** 0.1 % PENDING, the rest CONFIRMED: a rare status. */
export const RARE_PENDING: StatusMix = (i) => (i % 1000 === 500 ? "PENDING" : "CONFIRMED");
/**
 * Half CONFIRMED, half FAILED: every row final, so no boundary is ever due and the sweep never
 * wakes these candidates' objects (which do not exist). For rows kept in a database that is served
 * again later (the local development database): OPEN or PENDING rows would turn lagging a day on,
 * and every sweep would then wake up to a thousand empty objects.
 */
export const SETTLED_MIX: StatusMix = (i) => (i % 2 === 0 ? "CONFIRMED" : "FAILED");

/**
 * `count` index rows for the account, newest last, each settled in its status as of now (as its
 * object would have written it), with a price and, given `metadata`, the i-th row's metadata
 * (the migration's triggers index it as the Worker's writes are).
 */
export async function seedIndex(
  db: D1Database,
  accountId: string,
  count: number,
  mix: StatusMix = EVEN_MIX,
  metadata?: (i: number) => Record<string, string>,
) {
  const now = Date.now();
  const contract = JSON.stringify(BENCH_CONTRACT);
  const insert = db.prepare(
    `INSERT INTO candidates (id, account_id, alias, customer_uuid, schema_id, contract, created_at,
                             open_until, pending_until, final_status, version, settled_status, price_units, price_scale, metadata)
     VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
  );
  for (let start = 0; start < count; start += 500) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const status = mix(i, count);
      const created = now - 86_400_000;
      const openUntil = status === "OPEN" ? now + 86_400_000 : now - 3_600_000;
      const pendingUntil =
        status === "PENDING" ? now + 86_400_000 : status === "OPEN" ? openUntil + 3_600_000 : now - 60_000;
      const final = status === "FAILED" ? "FAILED" : "CONFIRMED";
      rows.push(
        insert.bind(
          uuidv7(),
          accountId,
          `seed-${accountId}-${i}`,
          `cust-${i % 100}`,
          contract,
          created,
          openUntil,
          pendingUntil,
          final,
          status,
          25,
          0,
          JSON.stringify(metadata?.(i) ?? {}),
        ),
      );
    }
    await db.batch(rows);
  }
}
