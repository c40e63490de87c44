/**
 * Every list query is a bounded range scan of an index, in the order it returns rows: no table
 * scan and no sort, so a page costs the same whatever the account holds (checked by SQLite's own
 * query planner on the migrated schema).
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { listPageQuery } from "../../src/db/candidates";
import { STATUSES } from "../../src/domain/timeline";

async function plan(sql: string, params: (string | number)[]): Promise<string[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail);
}

describe("candidate list queries", () => {
  const shapes = [undefined, ...STATUSES].flatMap((status) =>
    [undefined, "cust_42"].flatMap((customerUuid) =>
      [undefined, "0190aaaa-0000-7000-8000-000000000000"].map((after) => ({ status, customerUuid, after, limit: 50 })),
    ),
  );

  it.each(shapes)("%o searches one index in page order", async (query) => {
    const [sql, params] = listPageQuery("account", query, Date.now());
    const steps = await plan(sql, params);
    const index = query.customerUuid === undefined ? "candidates_by_account" : "candidates_by_customer";
    expect(steps).toEqual([expect.stringMatching(new RegExp(`^SEARCH candidates USING INDEX ${index} \\(account_id=\\?`))]);
  });
});
