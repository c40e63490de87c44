/**
 * The filters read off a range of an index (an alias prefix, an activity_ends range) on an account
 * large enough for both of their plans: a range matching few candidates (sorted off its index) and
 * one matching more than RANGE_SORT_LIMIT (walked newest first) page through exactly the matches,
 * newest first, as each plan alone would.
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { listCandidates, listPageQuery, RANGE_SORT_LIMIT, type CandidateListQuery } from "../../src/db/candidates";
import { bindNamed } from "../../src/db/sql-params";
import { seedIndex } from "../../scripts/lib/seed-index";
import { createAccount } from "../support/api";

async function everyPage(accountId: string, query: Omit<CandidateListQuery, "limit" | "after">, now = Date.now()) {
  const aliases: string[] = [];
  let after: string | undefined;
  do {
    const page = await listCandidates(env.DB, accountId, { ...query, limit: 100, after }, now);
    aliases.push(...page.records.map((r) => r.alias));
    after = page.nextCursor ?? undefined;
  } while (after);
  return aliases;
}

describe("the alias prefix on a large account", () => {
  it("lists exactly the matches, newest first, whichever plan the count chooses", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const count = RANGE_SORT_LIMIT + 100;
    await seedIndex(env.DB, account.id, count);
    await seedIndex(env.DB, other.id, 50);
    const { results } = await env.DB.prepare(`SELECT alias FROM candidates WHERE account_id = ? ORDER BY id DESC`)
      .bind(account.id)
      .all<{ alias: string }>();
    const newestFirst = results.map((r) => r.alias);

    // seed-<account>-: every candidate (walked); -1: 1, 10-19, 100-199, 1000-1099 (sorted); -10: 10, 100-109, 1000-1009.
    for (const suffix of ["", "1", "10", "1099", "x"]) {
      const prefix = `seed-${account.id}-${suffix}`;
      const expected = newestFirst.filter((alias) => alias.startsWith(prefix));
      expect(await everyPage(account.id, { aliasPrefix: prefix }), prefix).toEqual(expected);
      expect(await everyPage(account.id, { aliasPrefix: prefix, customerUuid: "cust-1" }), prefix).toEqual(
        expected.filter((alias) => Number(alias.slice(alias.lastIndexOf("-") + 1)) % 100 === 1),
      );
      // Each plan alone gives the same first page.
      const firstPage = async (rangePlan: "range" | "walk") => {
        const [sql, params] = listPageQuery(account.id, { aliasPrefix: prefix, rangePlan, limit: 100 }, Date.now());
        return (await bindNamed(env.DB, sql, params).all<{ alias: string }>()).results.map((r) => r.alias);
      };
      expect(await firstPage("walk")).toEqual(await firstPage("range"));
    }
    expect(await everyPage(other.id, { aliasPrefix: `seed-${account.id}-` })).toEqual([]);
  });
});

describe("the activity_ends range on a large account", () => {
  it("lists exactly the matches, newest first, whichever plan the count chooses", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const now = Date.now();
    // A quarter OPEN, their windows ending a day from now; the rest ended an hour ago.
    await seedIndex(env.DB, account.id, 2 * RANGE_SORT_LIMIT + 500);
    await seedIndex(env.DB, other.id, 50);
    const { results } = await env.DB.prepare(
      `SELECT alias, open_until, settled_status, customer_uuid FROM candidates WHERE account_id = ? ORDER BY id DESC`,
    )
      .bind(account.id)
      .all<{ alias: string; open_until: number; settled_status: string; customer_uuid: string }>();
    const ended = now - 3_600_000;
    const cases: [Omit<CandidateListQuery, "limit" | "after">, (r: (typeof results)[number]) => boolean][] = [
      [{ activityEnds: { gte: now } }, (r) => r.open_until >= now], // few: sorted
      [{ activityEnds: { lt: now } }, (r) => r.open_until < now], // many: walked
      [
        { activityEnds: { lt: now }, status: "CONFIRMED" },
        (r) => r.open_until < now && r.settled_status === "CONFIRMED",
      ],
      [{ status: "OPEN", activityEnds: { gte: now, lt: now + 2 * 86_400_000 } }, (r) => r.settled_status === "OPEN"],
      [
        { activityEnds: { gte: ended - 60_000, lt: ended + 60_000 }, customerUuid: "cust-2" },
        (r) => r.open_until < now && r.customer_uuid === "cust-2",
      ],
    ];
    for (const [query, matches] of cases) {
      const expected = results.filter(matches).map((r) => r.alias);
      expect(expected.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(await everyPage(account.id, query, now), JSON.stringify(query)).toEqual(expected);
      const firstPage = async (rangePlan: "range" | "walk") => {
        const [sql, params] = listPageQuery(account.id, { ...query, rangePlan, limit: 100 }, now);
        return (await bindNamed(env.DB, sql, params).all<{ alias: string }>()).results.map((r) => r.alias);
      };
      expect(await firstPage("walk"), JSON.stringify(query)).toEqual(await firstPage("range"));
    }
    expect(await everyPage(other.id, { activityEnds: { gte: now } }, now)).toHaveLength(13); // its OPEN ones only
  });
});
