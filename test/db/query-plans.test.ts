/**
 * Every list query is a bounded range scan of an index, in the order it returns rows: no table
 * scan and no sort, so a page costs the same whatever the account holds (checked by SQLite's own
 * query planner on the migrated schema).
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { listPageQuery } from "../../src/db/candidates";
import { bindNamed } from "../../src/db/sql-params";
import { SCHEMA_PAGE_SQL } from "../../src/db/schemas";
import { summaryQueries } from "../../src/db/summary";
import { PURGE_NOTIFICATIONS_SQL } from "../../src/db/notifications";
import { STATUSES } from "../../src/domain/timeline";
import { attemptsPageQuery, type AttemptStatus } from "../../src/db/webhook-deliveries";

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
    expect(
      searches.every(
        (s) => s.startsWith("SEARCH candidates USING INDEX") || s.startsWith("SEARCH candidates USING COVERING INDEX"),
      ),
      steps.join("\n"),
    ).toBe(true);
    const customer = query.customerUuid !== undefined;
    if (!query.status && !query.statusSince) {
      // One index walked in page order: no sort.
      expect(steps).toEqual([
        expect.stringMatching(
          new RegExp(
            `^SEARCH candidates USING INDEX ${customer ? "candidates_by_customer" : "candidates_by_account"} \\(account_id=\\?`,
          ),
        ),
      ]);
      return;
    }
    // Each wanted settled status walked newest first on its own index: no sort after its search...
    const settled = steps.flatMap((step, i) =>
      /candidates_by(_customer)?_settled/.test(step) ? [[step, steps[i + 1] ?? ""]] : [],
    );
    expect(settled).toHaveLength(query.status ? 1 : 4);
    for (const [step, next] of settled) {
      expect(step).toMatch(
        customer
          ? /\(account_id=\? AND customer_uuid=\? AND settled_status=\?/
          : /\(account_id=\? AND settled_status=\?/,
      );
      expect(next, steps.join("\n")).not.toMatch(/TEMP B-TREE/);
    }
    // ...and the few rows not in their settled status now, off the indexes that find them.
    expect(searches.filter((s) => s.includes("candidates_lagging (account_id=? AND settle_due_at<?)"))).toHaveLength(1);
    expect(searches.filter((s) => /candidates_(customer_)?billing .*settled_since>\?/.test(s))).toHaveLength(1);
    expect(searches).toHaveLength(settled.length + 2);
  });
});

describe("candidate list queries with metadata filters", () => {
  const shapes = [undefined, "cust_42"].flatMap((customerUuid) =>
    [undefined, "0190aaaa-0000-7000-8000-000000000000"].flatMap((after) =>
      [
        [["order_id", "ord_1"]],
        [
          ["order_id", "ord_1"],
          ["region", "eu"],
        ],
      ].map((metadata) => ({ customerUuid, after, metadata: metadata as [string, string][], limit: 50 })),
    ),
  );

  it.each(shapes)(
    "%o walks the first pair's entries newest first, looks up the rest, and sorts nothing",
    async (query) => {
      const [sql, params] = listPageQuery("account", query, Date.now());
      const steps = await plan(sql, params);
      expect(steps[0], steps.join("\n")).toMatch(
        new RegExp(
          `^SEARCH first USING PRIMARY KEY \\(account_id=\\? AND key=\\? AND value=\\?${query.after ? " AND candidate_id<\\?" : ""}\\)`,
        ),
      );
      expect(steps[1], steps.join("\n")).toMatch(/^SEARCH candidates USING (COVERING )?INDEX \w+ \(.*\bid=\?\)$/);
      expect(
        steps.filter((s) => /TEMP B-TREE|^SCAN /.test(s)),
        steps.join("\n"),
      ).toEqual([]);
      expect(
        steps.filter((s) => /^SEARCH m .*\(candidate_id=\? AND account_id=\? AND key=\? AND value=\?\)/.test(s)),
        steps.join("\n"),
      ).toHaveLength(query.metadata.length - 1);
    },
  );
});

describe("candidate list queries by alias prefix", () => {
  const shapes = [undefined, "cust_42"].flatMap((customerUuid) =>
    [undefined, "0190aaaa-0000-7000-8000-000000000000"].map((after) => ({
      customerUuid,
      after,
      aliasPrefix: "order-2026",
      limit: 50,
    })),
  );

  it.each(shapes)(
    "%o is one range of the alias index: a page costs the candidates the prefix matches",
    async (query) => {
      const [sql, params] = listPageQuery("account", query, Date.now());
      const steps = await plan(sql, params);
      expect(steps[0], steps.join("\n")).toMatch(
        /^SEARCH candidates USING INDEX candidates_by_alias \(account_id=\? AND alias>\? AND alias<\?\)$/,
      );
      expect(
        steps.filter((s) => /^SCAN /.test(s)),
        steps.join("\n"),
      ).toEqual([]);
    },
  );

  it.each(shapes)("%o, matching many, walks the account newest first testing the prefix: no sort", async (query) => {
    const [sql, params] = listPageQuery("account", { ...query, rangePlan: "walk" }, Date.now());
    const steps = await plan(sql, params);
    const index = query.customerUuid ? "candidates_by_customer" : "candidates_by_account";
    expect(steps, steps.join("\n")).toEqual([
      expect.stringMatching(new RegExp(`^SEARCH candidates USING INDEX ${index} \\(account_id=\\?`)),
    ]);
  });

  it("with a status, each status's walk tests the prefix on its way", async () => {
    const [sql, params] = listPageQuery(
      "account",
      { status: "OPEN", aliasPrefix: "order-2026", limit: 50 },
      Date.now(),
    );
    const steps = await plan(sql, params);
    expect(
      steps.some((s) =>
        /^SEARCH candidates USING INDEX candidates_by_settled \(account_id=\? AND settled_status=\?/.test(s),
      ),
      steps.join("\n"),
    ).toBe(true);
    expect(
      steps.filter((s) => /^SCAN candidates/.test(s)),
      steps.join("\n"),
    ).toEqual([]);
  });
});

describe("candidate list queries by activity_ends", () => {
  const shapes = [undefined, "OPEN" as const].flatMap((status) =>
    [undefined, "cust_42"].flatMap((customerUuid) =>
      [undefined, "0190aaaa-0000-7000-8000-000000000000"].map((after) => ({
        status,
        customerUuid,
        after,
        activityEnds: { gte: 1_700_000_000_000, lt: 1_700_086_400_000 },
        limit: 50,
      })),
    ),
  );

  it.each(shapes)("%o is one range of the activity end's index: a page costs what the range holds", async (query) => {
    const [sql, params] = listPageQuery("account", { ...query, rangePlan: "range" }, Date.now());
    const steps = await plan(sql, params);
    expect(steps[0], steps.join("\n")).toMatch(
      /^SEARCH candidates USING INDEX candidates_by_activity_end \(account_id=\? AND open_until>\? AND open_until<\?\)$/,
    );
    expect(
      steps.filter((s) => /^SCAN /.test(s)),
      steps.join("\n"),
    ).toEqual([]);
  });

  it.each(shapes)("%o, matching many, walks the account newest first testing the range: no sort", async (query) => {
    const [sql, params] = listPageQuery("account", { ...query, rangePlan: "walk" }, Date.now());
    const steps = await plan(sql, params);
    const index = query.customerUuid ? "candidates_by_customer" : "candidates_by_account";
    expect(steps, steps.join("\n")).toEqual([
      expect.stringMatching(new RegExp(`^SEARCH candidates USING (COVERING )?INDEX ${index} \\(account_id=\\?`)),
    ]);
  });
});

describe("schema list queries", () => {
  const params = {
    first: ["account", 50],
    afterPlace: ["account", 50, 1_700_000_000_000, "0190aaaa-0000-7000-8000-000000000000"],
    afterId: ["account", 50, "0190aaaa-0000-7000-8000-000000000000"],
  };

  it.each(Object.keys(SCHEMA_PAGE_SQL) as (keyof typeof SCHEMA_PAGE_SQL)[])(
    "%s walks schemas_by_account in page order",
    async (shape) => {
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${SCHEMA_PAGE_SQL[shape]}`)
        .bind(...params[shape])
        .all<{ detail: string }>();
      const steps = results.map((r) => r.detail);
      // A range of the account's index entries in page order (no sort, no scan); a cursor id is found by its key.
      expect(
        steps.filter((s) => /^(SEARCH|SCAN) /.test(s.trim().replace(/^[|`-]+/, "")) || /TEMP B-TREE/.test(s)),
        steps.join("\n"),
      ).toEqual([
        expect.stringMatching(/^SEARCH schemas USING INDEX schemas_by_account \(account_id=\?/),
        ...(shape === "afterId"
          ? [expect.stringMatching(/^SEARCH schemas USING (COVERING )?INDEX sqlite_autoindex_schemas_1 \(id=\?\)$/)]
          : []),
      ]);
    },
  );
});

describe("summary queries", () => {
  const shapes = [undefined, "cust_42"].flatMap((customerUuid) =>
    [undefined, { gte: 1_700_000_000_000 }, { gte: 1_700_000_000_000, lt: 1_800_000_000_000 }].flatMap((range) =>
      [undefined, { limit: 50 }, { after: "cust_1", limit: 50 }].map((byCustomer) => ({
        customerUuid,
        range,
        byCustomer,
      })),
    ),
  );

  it.each(shapes)("%o reads kept totals, or the candidates it counts off an index", async (query) => {
    const steps: string[] = [];
    for (const [sql, params] of summaryQueries("account", query, Date.now())) steps.push(...(await plan(sql, params)));
    const reads = steps.filter((s) => /^(SEARCH|SCAN) /.test(s));
    expect(
      reads.filter((s) => /^SCAN (candidates|candidate_totals)\b/.test(s)),
      steps.join("\n"),
    ).toEqual([]);
    // The few rows not in their settled status now: off the lagging index, and settled ahead.
    const candidateReads = reads.filter((s) => s.includes(" candidates "));
    expect(candidateReads.filter((s) => s.includes("candidates_lagging"))).toHaveLength(1);
    expect(candidateReads.filter((s) => /settled_since>\?\)$/.test(s))).toHaveLength(1);
    const counted = candidateReads.filter((s) => !s.includes("candidates_lagging") && !/settled_since>\?\)$/.test(s));
    // Without a range, kept totals and nothing else; with one, only the candidates in the range.
    if (!query.range) expect(counted, steps.join("\n")).toEqual([]);
    else {
      for (const read of counted) {
        // The candidates in the range; per customer, also the walk to a page of customers in customer order.
        const customerWalk =
          query.byCustomer && read.endsWith("candidates_customer_billing (account_id=? AND customer_uuid>?)");
        if (!customerWalk) expect(read, steps.join("\n")).toMatch(/candidates_(customer_)?billing .*settled_since[<>]/);
      }
    }
  });
});

describe("delivery log queries", () => {
  const shapes = [undefined, "ntf_0190aaaa000070008000000000000000_pending"].flatMap((notificationId) =>
    [undefined, "pending", "succeeded", "failed"].flatMap((status) =>
      [undefined, "0190aaaa-0000-7000-8000-000000000001"].map((after) => ({
        notificationId,
        status: status as AttemptStatus | undefined,
        after,
      })),
    ),
  );

  it.each(shapes)("%o walks one index in page order", async ({ notificationId, status, after }) => {
    const [sql, params] = attemptsPageQuery("account", "endpoint", { notificationId, status }, after, 50);
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(...params)
      .all<{ detail: string }>();
    const steps = results.map((r) => r.detail);
    const index = notificationId
      ? "webhook_deliveries_by_notification"
      : status
        ? "webhook_deliveries_by_status"
        : "webhook_deliveries_by_endpoint";
    // One index range in page order: no scan, no sort.
    expect(steps, steps.join("\n")).toEqual([
      expect.stringMatching(new RegExp(`^SEARCH webhook_deliveries USING INDEX ${index} \\(endpoint_id=\\?`)),
    ]);
  });
});

describe("the feed's purge", () => {
  it("finds the first notification kept by walking the feed from the oldest, and sorts nothing", async () => {
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${PURGE_NOTIFICATIONS_SQL}`)
      .bind(0, 5000)
      .all<{ detail: string }>();
    const steps = results.map((r) => r.detail);
    expect(
      steps.filter((s) => /TEMP B-TREE|notifications_by_age/.test(s)),
      steps.join("\n"),
    ).toEqual([]);
  });
});
