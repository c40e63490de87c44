/**
 * Reading the candidate list index: pages of an account's candidates, filtered by status as of an
 * instant, by customer, alias prefix, metadata, status_since and the activity window's end. A row holds the settled status its object
 * indexed; a row whose boundary passed without it moving is lagging (docs/candidate-object.md,
 * "Glossary"), and the queries compute the status from the timeline instead. The row's writes:
 * candidate-index.ts.
 */
import type { CandidateBasics } from "../candidate/record";
import type { JsonText } from "../domain/json";
import type { Contract } from "../domain/contract";
import type { FinalStatus, Status } from "../domain/timeline";
import type { Metadata } from "../domain/metadata";
import type { D1 } from "../shards";
import { bindNamed, type Params } from "./sql-params";
import { SETTLED_AT_NOW_SQL, STATUS_AT_SQL, STATUS_SINCE_AT_SQL, unsettledSelects } from "./status-at-sql";

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
  metadata: string;
}

const LISTED_COLUMNS =
  "id, alias, customer_uuid, schema_id, contract, created_at, open_until, pending_until, final_status, metadata";

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
  metadata: JSON.parse(row.metadata) as Metadata,
});

/** An instant range, either side open. */
export interface InstantRange {
  gte?: number;
  lt?: number;
}

export interface CandidateListQuery {
  status?: Status;
  customerUuid?: string;
  statusSince?: InstantRange;
  /** Key-value pairs the candidate's metadata must hold, every one. */
  metadata?: [key: string, value: string][];
  /** What the alias must begin with. */
  aliasPrefix?: string;
  /** When the activity window ends (`activity_ends_at`: the fulfilment instant once fulfilled). */
  activityEnds?: InstantRange;
  /**
   * With an activity_ends range, or a prefix alone, how a page is found: "range", that range of
   * its own index with the matches sorted (for a range that matches few), or "walk", the account's
   * candidates newest first, each tested (for one that matches many). listCandidates counts to choose.
   */
  rangePlan?: "range" | "walk";
  after?: string;
  limit: number;
}

export interface CandidatePage {
  records: ListedCandidate[];
  nextCursor: string | null;
  /** False when `after` is not the id of one of the account's candidates. */
  cursorValid: boolean;
}

/** The smallest UUIDv7 of instant `ms`: ids (made at creation) compare as their creation instants. */
const uuidv7Floor = (ms: number) => {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
};

/** A candidate's status began no later than 2 × 365 days (both windows at most) after its creation. */
const MAX_LIFETIME_MS = 2 * 365 * 86_400_000;

/**
 * The SQL and parameters of a list page (one row more than `limit`, to know if there is a next).
 *
 * Unfiltered (but for customer), one index walked newest first. With a status or a status_since
 * range, the union of: each wanted settled status's rows in it now, walked newest first on that
 * status's own index (a range tested on the index entry, and bounding the walk: a status that
 * began before `lt` belongs to a candidate created before it, and one that began at or after
 * `gte` to one created at most two years before), and the few rows not in their settled status
 * now, their status computed. Each part takes at most a page, so a page costs the same whatever
 * the account holds, however rare the status.
 */
export function listPageQuery(accountId: string, query: CandidateListQuery, now: number): [string, Params] {
  const params: Params = { account: accountId, now, limit: query.limit + 1 };
  const common = ["account_id = :account"];
  const customer = query.customerUuid !== undefined;
  if (customer) {
    common.push("customer_uuid = :customer");
    params.customer = query.customerUuid!;
  }
  if (query.aliasPrefix !== undefined) {
    // A range of the alias order: exactly the aliases that begin with the prefix.
    common.push("alias >= :pfrom");
    params.pfrom = query.aliasPrefix;
    const beyond = prefixUpperBound(query.aliasPrefix);
    if (beyond !== null) {
      common.push("alias < :pto");
      params.pto = beyond;
    }
  }
  if (query.after !== undefined) {
    common.push("id < :after");
    params.after = query.after;
  }
  const page = (select: string) => `${select} ORDER BY id DESC LIMIT :limit`;
  const range = query.statusSince ?? {};
  const pairs = query.metadata ?? [];
  pairs.forEach(([key, value], i) => Object.assign(params, { [`mk${i}`]: key, [`mv${i}`]: value }));
  /** The candidate's metadata holds pair i (a primary-key lookup in candidate_metadata). */
  const holds = (i: number) =>
    `EXISTS (SELECT 1 FROM candidate_metadata m WHERE m.account_id = :account AND m.key = :mk${i} AND m.value = :mv${i} AND m.candidate_id = candidates.id)`;
  const inRange = (since: string) => [
    ...(range.gte === undefined ? [] : [`${since} >= :gte`]),
    ...(range.lt === undefined ? [] : [`${since} < :lt`]),
  ];
  const walkAll = customer ? "candidates_by_customer" : "candidates_by_account";
  if (hasActivityEnds(query)) {
    // One select, the status and its beginning computed from the timeline (every column it needs
    // is on the walk's index entries): few matches are sorted off the activity end's index; many
    // are met soon walking newest first.
    const ends = query.activityEnds!;
    if (ends.gte !== undefined) common.push("open_until >= :agte");
    if (ends.lt !== undefined) common.push("open_until < :alt");
    Object.assign(params, ends.gte !== undefined && { agte: ends.gte }, ends.lt !== undefined && { alt: ends.lt });
    if (range.gte !== undefined) params.gte = range.gte;
    if (range.lt !== undefined) params.lt = range.lt;
    const conditions = [
      ...common,
      ...pairs.map((_, i) => holds(i)),
      ...(query.status ? [`${STATUS_AT_SQL} = '${query.status}'`] : []),
      ...inRange(STATUS_SINCE_AT_SQL),
    ];
    const index = query.rangePlan === "walk" ? walkAll : "candidates_by_activity_end";
    return [
      page(`SELECT ${LISTED_COLUMNS} FROM candidates INDEXED BY ${index} WHERE ${conditions.join(" AND ")}`),
      params,
    ];
  }
  if (!query.status && range.gte === undefined && range.lt === undefined) {
    // By prefix alone: few matches are sorted off the alias index; many are met soon walking newest first.
    if (pairs.length === 0 && query.aliasPrefix !== undefined) {
      const index = query.rangePlan === "walk" ? walkAll : "candidates_by_alias";
      return [
        page(`SELECT ${LISTED_COLUMNS} FROM candidates INDEXED BY ${index} WHERE ${common.join(" AND ")}`),
        params,
      ];
    }
    if (pairs.length === 0)
      return [page(`SELECT ${LISTED_COLUMNS} FROM candidates WHERE ${common.join(" AND ")}`), params];
    // Walked on the first pair's index entries, newest first: a page costs what a plain page costs.
    const walk = [
      "first.account_id = :account",
      "first.key = :mk0",
      "first.value = :mv0",
      ...(query.after === undefined ? [] : ["first.candidate_id < :after"]),
    ];
    const rest = common.filter((c) => !c.startsWith("id <")).map((c) => `candidates.${c}`);
    return [
      // CROSS JOIN: SQLite keeps the written order, so the walk drives the page.
      `SELECT ${LISTED_COLUMNS} FROM candidate_metadata first CROSS JOIN candidates ON candidates.id = first.candidate_id
       WHERE ${[...walk, ...rest, ...pairs.slice(1).map((_, i) => holds(i + 1))].join(" AND ")}
       ORDER BY first.candidate_id DESC LIMIT :limit`,
      params,
    ];
  }
  common.push(...pairs.map((_, i) => holds(i)));

  const created: string[] = [];
  if (range.gte !== undefined) {
    params.gte = range.gte;
    params.idfrom = uuidv7Floor(range.gte - MAX_LIFETIME_MS);
    created.push("id >= :idfrom");
  }
  if (range.lt !== undefined) {
    params.lt = range.lt;
    params.idto = uuidv7Floor(range.lt + 1000); // a second's margin: an id's instant may run a little ahead
    created.push("id < :idto");
  }
  const statuses = query.status ? [query.status] : STATUSES_IN_ORDER;
  const walk = customer ? "candidates_by_customer_settled" : "candidates_by_settled";
  const settledParts = statuses.map((status) =>
    page(
      `SELECT ${LISTED_COLUMNS} FROM candidates INDEXED BY ${walk}
       WHERE ${[...common, `settled_status = '${status}'`, SETTLED_AT_NOW_SQL, ...created, ...inRange("settled_since")].join(" AND ")}`,
    ),
  );
  const computed = [
    `${STATUS_AT_SQL} IN (${statuses.map((s) => `'${s}'`).join(", ")})`,
    ...inRange(STATUS_SINCE_AT_SQL),
  ];
  const unsettledParts = unsettledSelects(LISTED_COLUMNS, [...common, ...computed], customer).map(page);
  // D1 allows 5 terms in a compound SELECT: the parts are merged in groups of at most 4.
  const merged = (parts: string[]) => page(parts.map((part) => `SELECT * FROM (${part})`).join(" UNION ALL "));
  const groups = [settledParts, unsettledParts].map((parts) => (parts.length === 1 ? parts[0] : merged(parts)));
  return [merged(groups), params];
}

/**
 * The least string above every string that begins with `prefix` (null: none is), in SQLite's
 * BINARY order of UTF-8, which is code point order: the prefix with its last code point raised by
 * one (a last U+10FFFF, the highest, dropped first).
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop();
  if (points.length === 0) return null;
  const raised = points.pop()! + 1;
  // The surrogates are not code points a string holds: past them is U+E000.
  return String.fromCodePoint(...points, raised === 0xd800 ? 0xe000 : raised);
}

const STATUSES_IN_ORDER: Status[] = ["OPEN", "PENDING", "CONFIRMED", "FAILED"];

/**
 * A range (an activity_ends range, or a prefix) that matches at most this many of the account's
 * candidates has them sorted for a page; one that matches more is walked newest first, where a
 * page meets its rows soon: either way a page reads at most about RANGE_SORT_LIMIT × (the
 * account's candidates ÷ the matches) rows.
 */
export const RANGE_SORT_LIMIT = 1000;

const hasActivityEnds = (query: CandidateListQuery) =>
  query.activityEnds?.gte !== undefined || query.activityEnds?.lt !== undefined;

/** Whether a page is read off a range of an index (activity_ends, or a prefix alone): its plan is chosen by a count. */
const readsARange = (query: CandidateListQuery) => hasActivityEnds(query) || isPrefixOnly(query);

const isPrefixOnly = (query: CandidateListQuery) =>
  query.aliasPrefix !== undefined &&
  !query.status &&
  query.statusSince?.gte === undefined &&
  query.statusSince?.lt === undefined &&
  !query.metadata?.length;

/** Whether `count` of the account's candidates match the query read off its range: a bounded count. */
async function rangeMatchesAtLeast(
  db: D1,
  accountId: string,
  query: CandidateListQuery,
  count: number,
  now: number,
): Promise<boolean> {
  const [sql, params] = listPageQuery(
    accountId,
    { ...query, after: undefined, rangePlan: "range", limit: count - 1 },
    now,
  );
  const probe = sql.replace(`SELECT ${LISTED_COLUMNS} FROM`, "SELECT 1 FROM").replace(" ORDER BY id DESC", "");
  const found = await bindNamed(db, `SELECT count(*) AS n FROM (${probe})`, params).first<number>("n");
  return (found ?? 0) >= count;
}

/** A page of the account's candidates, newest first, with status filtered as of `now`. */
export async function listCandidates(
  db: D1,
  accountId: string,
  query: CandidateListQuery,
  now: number,
): Promise<CandidatePage> {
  if (readsARange(query))
    query = {
      ...query,
      rangePlan: (await rangeMatchesAtLeast(db, accountId, query, RANGE_SORT_LIMIT + 1, now)) ? "walk" : "range",
    };
  const [sql, params] = listPageQuery(accountId, query, now);
  const page = bindNamed(db, sql, params);
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
