/**
 * The SQL that tells a row's status at an instant (:now), shared by the list (candidates.ts) and
 * the summary (summary.ts). A row holds the settled status its object indexed; a row whose
 * boundary passed without it moving is lagging (docs/candidate-object.md, "Glossary"), and its
 * status is computed from the timeline instead.
 */

/**
 * The SQL twins of `statusAt` in domain/timeline.ts, over the timeline columns: the status at
 * instant :now and when it began. Only lagging rows (settle_due_at <= now) need them: every other
 * row is in its settled status, since its settled_since.
 */
export const STATUS_AT_SQL = `iif(open_until > :now, 'OPEN', iif(pending_until > :now, 'PENDING', final_status))`;
export const STATUS_SINCE_AT_SQL = `iif(open_until > :now, created_at, iif(pending_until > :now, open_until, pending_until))`;

/** Rows in their settled status at :now: not lagging behind it, not settled ahead of it. */
export const SETTLED_AT_NOW_SQL = "(settle_due_at IS NULL OR settle_due_at > :now) AND settled_since <= :now";

/**
 * The rows NOT in their settled status at :now, whose status is computed: those lagging behind
 * it (their boundary passed since they settled; the sweep settles them within a minute) and those
 * settled ahead of it (an alarm wrote a later status after the request took its instant). Few,
 * each kind found on its own index: two selects of `columns`, each with the extra conditions.
 */
export function unsettledSelects(columns: string, where: string[], customer: boolean): [string, string] {
  const billing = customer ? "candidates_customer_billing" : "candidates_billing";
  return [
    `SELECT ${columns} FROM candidates INDEXED BY candidates_lagging WHERE ${[...where, "settle_due_at <= :now"].join(" AND ")}`,
    `SELECT ${columns} FROM candidates INDEXED BY ${billing} WHERE ${[
      ...where,
      "settled_status IN ('OPEN', 'PENDING', 'CONFIRMED', 'FAILED')",
      "settled_since > :now",
      "(settle_due_at IS NULL OR settle_due_at > :now)",
    ].join(" AND ")}`,
  ];
}
