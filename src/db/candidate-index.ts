/**
 * The candidate list index's writes: the row a candidate object keeps current (its settled status,
 * versioned so a late write never undoes a newer one), and the sweep's query for rows lagging
 * behind their boundary (docs/candidate-object.md, "Glossary"). The lists read it: candidates.ts.
 */
import type { CandidateRecord } from "../candidate/record";
import type { Status } from "../domain/timeline";
import { decimalParts } from "../domain/decimal";
import type { D1 } from "../shards";
/**
 * The statement that writes the candidate's index row, with the status its object has settled.
 * A write carrying an older version than the stored row is ignored, so retried and reordered
 * writes from the object are harmless (an equal version rewrites the same row: the sweep's repair).
 */
export function candidateIndexStatement(db: D1, c: CandidateRecord, settledStatus: Status) {
  return db
    .prepare(
      `INSERT INTO candidates (id, account_id, alias, customer_uuid, schema_id, contract,
                               created_at, open_until, pending_until, final_status, version, settled_status,
                               price_units, price_scale, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET
         open_until = excluded.open_until,
         pending_until = excluded.pending_until,
         final_status = excluded.final_status,
         version = excluded.version,
         settled_status = excluded.settled_status,
         metadata = excluded.metadata
       WHERE excluded.version >= candidates.version`,
    )
    .bind(
      c.id,
      c.accountId,
      c.alias,
      c.customerUuid,
      c.schemaId,
      JSON.stringify(c.contract),
      c.timeline.createdAt,
      c.timeline.openUntil,
      c.timeline.pendingUntil,
      c.timeline.finalStatus,
      c.version,
      settledStatus,
      ...priceColumns(c.contract.price),
      JSON.stringify(c.metadata ?? {}),
    );
}

/** The exact price as the index stores it (see domain/decimal.ts). */
const priceColumns = (price: number) => {
  const { units, scale } = decimalParts(price);
  return [units, scale] as const;
};

/** Candidates whose settled status was due to move before `dueBefore`: what the sweep wakes. */
export async function candidatesDueToSettle(db: D1, dueBefore: number, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT alias FROM candidates WHERE settle_due_at <= ? ORDER BY settle_due_at LIMIT ?`)
    .bind(dueBefore, limit)
    .all<{ alias: string }>();
  return results.map((r) => r.alias);
}
