/** Typed D1 queries for the candidate list index. */
import type { CandidateBasics, CandidateRecord } from "../candidate/record";
import type { JsonText } from "../domain/json";
import type { Contract } from "../domain/contract";
import type { FinalStatus, Status } from "../domain/timeline";

/** The columns a list page reads. */
interface ListedRow {
  id: string;
  alias: string;
  customer_uuid: string;
  schema_id: string | null;
  contract: string;
  created_at: number;
  open_until: number;
  pending_until: number;
  final_status: FinalStatus;
}

const LISTED_COLUMNS = "id, alias, customer_uuid, schema_id, contract, created_at, open_until, pending_until, final_status";

/** A candidate as a list reads it: the contract stays the JSON text it is stored as. */
export type ListedCandidate = CandidateBasics & { contract: JsonText<Contract> };

const fromRow = (row: ListedRow): ListedCandidate => ({
  id: row.id,
  alias: row.alias,
  customerUuid: row.customer_uuid,
  schemaId: row.schema_id,
  contract: row.contract as JsonText<Contract>,
  timeline: {
    createdAt: row.created_at,
    openUntil: row.open_until,
    pendingUntil: row.pending_until,
    finalStatus: row.final_status,
  },
});

/**
 * The statement that writes the candidate's index row, with the status its object has settled.
 * A write carrying an older version than the stored row is ignored, so retried and reordered
 * writes from the object are harmless (an equal version rewrites the same row: the sweep's repair).
 */
export function candidateIndexStatement(db: D1Database, c: CandidateRecord, settledStatus: Status) {
  return db
    .prepare(
      `INSERT INTO candidates (id, account_id, alias, customer_uuid, schema_id, contract,
                               created_at, open_until, pending_until, final_status, version, settled_status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET
         open_until = excluded.open_until,
         pending_until = excluded.pending_until,
         final_status = excluded.final_status,
         version = excluded.version,
         settled_status = excluded.settled_status
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
    );
}

/** Candidates whose settled status was due to move before `dueBefore`: what the sweep wakes. */
export async function candidatesDueToSettle(db: D1Database, dueBefore: number, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT alias FROM candidates WHERE settle_due_at <= ? ORDER BY settle_due_at LIMIT ?`)
    .bind(dueBefore, limit)
    .all<{ alias: string }>();
  return results.map((r) => r.alias);
}

/** The SQL twin of `statusAt` in domain/timeline.ts: the rows that have `status` at instant `now`. */
function statusAtSql(status: Status, now: number): [string, number[]] {
  switch (status) {
    case "OPEN":
      return ["open_until > ?", [now]];
    case "PENDING":
      return ["open_until <= ? AND pending_until > ?", [now, now]];
    case "CONFIRMED":
    case "FAILED":
      return [`pending_until <= ? AND final_status = '${status}'`, [now]];
  }
}

export interface CandidateListQuery {
  status?: Status;
  customerUuid?: string;
  after?: string;
  limit: number;
}

export interface CandidatePage {
  records: ListedCandidate[];
  nextCursor: string | null;
  /** False when `after` is not the id of one of the account's candidates. */
  cursorValid: boolean;
}

/** The SQL and parameters of a list page (one row more than `limit`, to know if there is a next). */
export function listPageQuery(accountId: string, query: CandidateListQuery, now: number): [string, (string | number)[]] {
  const where = ["account_id = ?"];
  const params: (string | number)[] = [accountId];
  if (query.status) {
    const [sql, values] = statusAtSql(query.status, now);
    where.push(sql);
    params.push(...values);
  }
  if (query.customerUuid !== undefined) {
    where.push("customer_uuid = ?");
    params.push(query.customerUuid);
  }
  if (query.after !== undefined) {
    where.push("id < ?");
    params.push(query.after);
  }
  const sql = `SELECT ${LISTED_COLUMNS} FROM candidates WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`;
  return [sql, [...params, query.limit + 1]];
}

/** A page of the account's candidates, newest first, with status filtered as of `now`. */
export async function listCandidates(
  db: D1Database,
  accountId: string,
  query: CandidateListQuery,
  now: number,
): Promise<CandidatePage> {
  const [sql, params] = listPageQuery(accountId, query, now);
  const page = db.prepare(sql).bind(...params);
  if (query.after === undefined) {
    const { results } = await page.all<ListedRow>();
    return toPage(results, query.limit, true);
  }
  const cursor = db.prepare(`SELECT id FROM candidates WHERE id = ? AND account_id = ?`).bind(query.after, accountId);
  const [rows, found] = await db.batch<ListedRow>([page, cursor]);
  return toPage(rows.results, query.limit, found.results.length > 0);
}

function toPage(rows: ListedRow[], limit: number, cursorValid: boolean): CandidatePage {
  const records = rows.slice(0, limit).map(fromRow);
  const nextCursor = rows.length > limit ? records[records.length - 1].id : null;
  return { records, nextCursor, cursorValid };
}
