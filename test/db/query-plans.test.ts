/**
 * Every list query is a bounded range scan of an index, in the order it returns rows: no table
 * scan and no sort, so a page costs the same whatever the account holds (checked by SQLite's own
 * query planner on the migrated schema).
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { bindNamed, listPageQuery } from "../../src/db/candidates";
import { summaryQueries } from "../../src/db/summary";
import { STATUSES } from "../../src/domain/timeline";

async function plan(sql: string, params: Record<string, string | number>): Promise<string[]> {
  const { results } = await bindNamed(env.DB, `EXPLAIN QUERY PLAN ${sql}`, params).all<{ detail: string }>();
  return results.map((r) => r.detail);
}

describe("candidate list queries", () => {
  const ranges = [undefined, { gte: 1_700_000_000_000 }, { gte: 1_700_000_000_000, lt: 1_800_000_000_000 }];
  const shapes = [undefined, ...STATUSES].flatMap((status) =>
    [undefined, "cust_42"].flatMap((customerUuid) =>
      [undefined, "0190aaaa-0000-7000-8000-000000000000"].flatMap((after) =>
        ranges.map((statusSince) => ({ status, customerUuid, after, statusSince, limit: 50 })),
      ),
    ),
  );

  it.each(shapes)("%o searches indexes only, each part at most a page", async (query) => {
    const [sql, params] = listPageQuery("account", query, Date.now());
    const steps = await plan(sql, params);
    const searches = steps.filter((s) => /^(SEARCH|SCAN) candidates/.test(s));
    expect(searches.every((s) => s.startsWith("SEARCH candidates USING INDEX") || s.startsWith("SEARCH candidates USING COVERING INDEX")), steps.join("\n")).toBe(true);
    const customer = query.customerUuid !== undefined;
    if (!query.status && !query.statusSince) {
      // One index walked in page order: no sort.
      expect(steps).toEqual([expect.stringMatching(new RegExp(`^SEARCH candidates USING INDEX ${customer ? "candidates_by_customer" : "candidates_by_account"} \\(account_id=\\?`))]);
      return;
    }
    const settled = searches.slice(0, -1);
    expect(settled).toHaveLength(query.status ? 1 : 4);
    for (const step of settled) {
      // Each settled status on its own index: walked newest first, or, with a range, read in it.
      expect(step).toMatch(customer ? /candidates_(by_customer_settled|customer_billing) \(account_id=\? AND customer_uuid=\? AND settled_status=\?/ : /candidates_(by_settled|billing) \(account_id=\? AND settled_status=\?/);
      if (!query.statusSince) expect(step).toMatch(/candidates_by(_customer)?_settled/);
    }
    expect(searches.at(-1)).toMatch(/^SEARCH candidates USING INDEX candidates_lagging \(account_id=\? AND settle_due_at<\?\)/);
  });
});

describe("summary queries", () => {
  const shapes = [undefined, "cust_42"].flatMap((customerUuid) =>
    [undefined, { gte: 1_700_000_000_000 }, { gte: 1_700_000_000_000, lt: 1_800_000_000_000 }].flatMap((range) =>
      [undefined, { limit: 50 }, { after: "cust_1", limit: 50 }].map((byCustomer) => ({ customerUuid, range, byCustomer })),
    ),
  );

  it.each(shapes)("%o reads kept totals, or the candidates it counts off an index", async (query) => {
    const steps: string[] = [];
    for (const [sql, params] of summaryQueries("account", query, Date.now())) steps.push(...(await plan(sql, params)));
    const reads = steps.filter((s) => /^(SEARCH|SCAN) /.test(s));
    expect(reads.filter((s) => /^SCAN (candidates|candidate_totals)\b/.test(s)), steps.join("\n")).toEqual([]);
    if (!query.range) expect(reads.filter((s) => s.includes(" candidates ")).length, steps.join("\n")).toBe(1); // the lagging rows only
    else {
      // Only the candidates in the range are read: every search of candidates is a range on the billing index.
      const candidateReads = reads.filter((s) => s.includes(" candidates ") && !s.includes("candidates_lagging"));
      for (const read of candidateReads) expect(read, steps.join("\n")).toMatch(/candidates_(customer_)?billing .*settled_since[<>]/);
    }
    expect(reads.some((s) => /candidates_lagging/.test(s))).toBe(true);
  });
});
