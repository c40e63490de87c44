/**
 * The alias prefix filter on an account large enough for both of its plans: a prefix matching
 * few candidates (sorted off the alias index) and one matching more than RANGE_SORT_LIMIT (walked
 * newest first) page through exactly the matches, newest first, as each plan alone would.
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { listCandidates, listPageQuery, RANGE_SORT_LIMIT, type CandidateListQuery } from "../../src/db/candidates";
import { bindNamed } from "../../src/db/sql-params";
import { seedIndex } from "../../scripts/lib/seed-index";
import { createAccount } from "../support/api";

async function everyPage(accountId: string, query: Omit<CandidateListQuery, "limit" | "after">) {
  const aliases: string[] = [];
  let after: string | undefined;
  do {
    const page = await listCandidates(env.DB, accountId, { ...query, limit: 100, after }, Date.now());
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
