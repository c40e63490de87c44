/**
 * What each operation writes to the shared D1 database (the budget in docs/scale.md), counted
 * through the runtime: an event that changes no status writes nothing, keyed or not, alone or in
 * a batch; a status change or a create is one round trip. Idempotency-Keys live in Durable
 * Objects (IdempotencyKeysObject), so a key adds nothing. Prints the figures for the README.
 */
import { describe, expect, it } from "vitest";
import { call, contract, createAccount, freshAlias } from "../support/api";
import { observeD1 } from "../support/d1-observer";

type Row = { status: number; writes: number; writeRoundTrips: number; reads: number; statements: string[] };

describe("D1 writes per operation", () => {
  it("keep to the budget", async () => {
    const account = await createAccount();
    const post = (path: string, json: unknown, key?: string) =>
      call("POST", path, { token: account.token, json, headers: key ? { "Idempotency-Key": key } : {} });
    expect((await post("/v1/schemas", { contract: contract({ review_window: 600 }) })).status).toBe(201);
    const [alias, keyedAlias] = [freshAlias(), freshAlias()];
    const rows: Record<string, Row> = {};
    const measure = async (name: string, run: () => Promise<{ status: number }>) => {
      let status = 0;
      const use = await observeD1(async () => (status = (await run()).status));
      rows[name] = {
        status,
        writes: use.writes.length,
        writeRoundTrips: use.writeRoundTrips,
        reads: use.reads,
        statements: use.writes,
      };
    };
    const views = (n: number, itemKeys: boolean) =>
      Array.from({ length: n }, () => ({
        candidate_alias: alias,
        type: "view",
        ...(itemKeys ? { idempotency_key: crypto.randomUUID() } : {}),
      }));
    await measure("create, no key", () => post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias }));
    await measure("create, keyed", () =>
      post("/v1/candidates", { customer_uuid: "c", candidate_alias: keyedAlias }, crypto.randomUUID()),
    );
    await measure("event, no change, no key", () => post("/v1/events", { candidate_alias: alias, type: "view" }));
    await measure("event, no change, keyed", () =>
      post("/v1/events", { candidate_alias: alias, type: "view" }, crypto.randomUUID()),
    );
    await measure("batch of 10, no change, keyed", () =>
      post("/v1/events/batch", { events: views(10, false) }, crypto.randomUUID()),
    );
    await measure("batch of 10, no change, item keys", () => post("/v1/events/batch", { events: views(10, true) }));
    await measure("event that fulfils, no key", () =>
      post("/v1/events", { candidate_alias: keyedAlias, type: "purchase", value: 150 }),
    );
    await measure("event that fulfils, keyed", () =>
      post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }, crypto.randomUUID()),
    );
    await measure("resolve (ends the review), keyed", () =>
      post(`/v1/candidates/${alias}/resolve`, { outcome: "CONFIRMED" }, crypto.randomUUID()),
    );
    console.log(JSON.stringify(rows, null, 1));

    for (const row of Object.values(rows)) expect(row.status).toBeLessThan(300);
    for (const name of [
      "event, no change, no key",
      "event, no change, keyed",
      "batch of 10, no change, keyed",
      "batch of 10, no change, item keys",
    ]) {
      // Nor any read: such an event costs the shared databases nothing at all.
      expect(rows[name], name).toMatchObject({ writes: 0, writeRoundTrips: 0, reads: 0 });
    }
    // A status change: the index and the feed, one round trip.
    for (const name of [
      "event that fulfils, no key",
      "event that fulfils, keyed",
      "resolve (ends the review), keyed",
    ]) {
      expect(rows[name], name).toMatchObject({ writes: 2, writeRoundTrips: 1 });
    }
    // A create: its index row (the schema it takes is read).
    for (const name of ["create, no key", "create, keyed"])
      expect(rows[name], name).toMatchObject({ writes: 1, writeRoundTrips: 1 });
  });
});
