/**
 * The candidate list's filters, kept in the page's address (so a filtered list can be bookmarked,
 * and Back undoes a filter), and turned into the API's query for the list and the CSV export.
 * Dates are whole UTC days: "from" its first instant, "to" inclusive (the next day's first instant).
 */
import type { paths } from "@candidate-contract-service/client";
import { BASE } from "../../paths";
import { localError } from "../shared/form-error";

export type ListQuery = NonNullable<paths["/v1/candidates"]["get"]["parameters"]["query"]>;

export interface Filters {
  status: string;
  customer_uuid: string;
  /** YYYY-MM-DD, UTC. */
  from: string;
  /** YYYY-MM-DD, UTC, inclusive. */
  to: string;
  alias_prefix: string;
  metadata: [string, string][];
}

export const NO_FILTERS: Filters = { status: "", customer_uuid: "", from: "", to: "", alias_prefix: "", metadata: [] };

const METADATA_PARAM = /^metadata\[(.*)\]$/s;

/** The filters named by the page's query (preact-iso's `query`: one value per name). */
export function filtersFromQuery(query: Record<string, string>): Filters {
  return {
    status: query.status ?? "",
    customer_uuid: query.customer_uuid ?? "",
    from: query.from ?? "",
    to: query.to ?? "",
    alias_prefix: query.alias_prefix ?? "",
    metadata: Object.entries(query).flatMap(([name, value]) => {
      const key = METADATA_PARAM.exec(name)?.[1];
      return key === undefined ? [] : [[key, value] as [string, string]];
    }),
  };
}

/** The page's address for these filters: `/dashboard/candidates?status=OPEN&metadata[region]=us`. */
export function candidatesHref(filters: Partial<Filters>): string {
  const params = new URLSearchParams();
  for (const name of ["status", "customer_uuid", "from", "to", "alias_prefix"] as const)
    if (filters[name]) params.set(name, filters[name]);
  for (const [key, value] of filters.metadata ?? []) params.set(`metadata[${key}]`, value);
  const search = params.toString();
  return `${BASE}/candidates${search ? `?${search}` : ""}`;
}

export const isFiltered = (filters: Filters) => candidatesHref(filters) !== candidatesHref(NO_FILTERS);

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day's first instant, UTC. Anything else goes as written, for the API to say what is wrong with it. */
export const dayStart = (day: string) => `${day}T00:00:00.000Z`;

/** The next day's first instant, UTC: the exclusive end of an inclusive "to" day. */
export function dayAfter(day: string): string {
  const t = Date.parse(dayStart(day));
  return DAY.test(day) && !Number.isNaN(t) ? new Date(t + 86_400_000).toISOString() : dayStart(day);
}

/**
 * What the API would refuse in these filters, in the form's words: its own message names
 * `status_since_gte`, which the form calls "from". Null when the API is to judge.
 */
export function filterProblem(filters: Filters) {
  const [from, to] = [Date.parse(dayStart(filters.from)), Date.parse(dayStart(filters.to))];
  return to < from ? localError("status_since_lt", "must not be before the “from” day") : null;
}

/** The API's query for these filters (without paging). */
export function apiQuery(filters: Filters): Omit<ListQuery, "after" | "limit"> {
  return {
    ...(filters.status && { status: filters.status as ListQuery["status"] }),
    ...(filters.customer_uuid && { customer_uuid: filters.customer_uuid }),
    ...(filters.from && { status_since_gte: dayStart(filters.from) }),
    ...(filters.to && { status_since_lt: dayAfter(filters.to) }),
    ...(filters.alias_prefix && { candidate_alias_prefix: filters.alias_prefix }),
    // The typed client writes `metadata[KEY]` with the key as given: encoded here, so `&` or `=` in a key stay in it.
    ...(filters.metadata.length > 0 && {
      metadata: Object.fromEntries(filters.metadata.map(([k, v]) => [encodeURIComponent(k), v])),
    }),
  };
}

/**
 * The CSV export of a list query (as `apiQuery` makes it, its metadata keys encoded for the typed
 * client): a same-origin GET, which the session cookie authenticates.
 */
export function exportHref(query: Omit<ListQuery, "after" | "limit">): string {
  const { metadata = {}, ...rest } = query;
  const params = new URLSearchParams(rest as Record<string, string>);
  for (const [key, value] of Object.entries(metadata)) params.set(`metadata[${decodeURIComponent(key)}]`, value);
  const search = params.toString();
  return `/v1/candidates/export${search ? `?${search}` : ""}`;
}
