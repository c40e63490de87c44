/**
 * The candidate object's stored state: alarms at window ends persist the boundary the timeline
 * decided, exactly once in effect however often they run, and everything survives eviction.
 */
import { describe, expect, it, vi } from "vitest";
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import {
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  objectOf,
  dbOf,
  okBody,
} from "../support/api";
import { iso, useClock } from "../support/clock";

async function stored(alias: string) {
  return inCandidate(alias, async (_instance, state) => ({
    row: state.storage.sql.exec(`SELECT settled_status, settled_since, indexed_version FROM candidate`).one(),
    alarm: await state.storage.getAlarm(),
    events: state.storage.sql.exec(`SELECT COUNT(*) AS n FROM events`).one().n,
  }));
}

async function setup(over: Record<string, unknown> = {}) {
  const api = client(await createAccount());
  const clock = useClock();
  const t0 = clock.now();
  const alias = freshAlias();
  const body = {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract({ activity_window: 60, review_window: 30, ...over }),
  };
  expect((await api.post("/v1/candidates", body)).status).toBe(201);
  return { api, clock, t0, alias, stub: objectOf(alias) };
}

describe("alarms", () => {
  it("are armed at each window end and persist each boundary at its exact instant", async () => {
    const { clock, t0, alias, stub } = await setup();
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "OPEN", settled_since: t0 },
      alarm: t0 + 60_000,
    });

    clock.set(t0 + 60_000 + 1234); // the alarm fires late
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "PENDING", settled_since: t0 + 60_000 },
      alarm: t0 + 90_000,
    });

    clock.set(t0 + 90_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "FAILED", settled_since: t0 + 90_000 },
      alarm: null,
    });
    expect(await runDurableObjectAlarm(stub)).toBe(false);
  });

  it("change nothing when run twice", async () => {
    const { clock, t0, alias, stub, api } = await setup();
    clock.set(t0 + 60_000);
    await runDurableObjectAlarm(stub);
    const once = await stored(alias);
    const readOnce = okBody(await api.get(`/v1/candidates/${alias}`));
    await inCandidate(alias, (instance) => instance.alarm());
    expect(await stored(alias)).toEqual(once);
    expect((await api.get(`/v1/candidates/${alias}`)).body).toEqual(readOnce);
  });

  it("that fire early change nothing and re-arm for the boundary", async () => {
    const { clock, t0, alias } = await setup();
    clock.set(t0 + 30_000);
    await inCandidate(alias, (instance) => instance.alarm());
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "OPEN", settled_since: t0 },
      alarm: t0 + 60_000,
    });
  });

  it("catch up several boundaries at once after a long outage", async () => {
    const { clock, t0, alias, stub, api } = await setup({ timeout_outcome: "confirm" });
    clock.set(t0 + 10 * 86_400_000);
    await runDurableObjectAlarm(stub);
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "CONFIRMED", settled_since: t0 + 90_000 },
      alarm: null,
    });
    expect((await api.get(`/v1/candidates/${alias}`)).body).toMatchObject({
      status: "CONFIRMED",
      status_since: iso(t0 + 90_000),
    });
  });

  it("move to the fulfilment's review end once an event fulfils the condition", async () => {
    const { clock, t0, alias, api } = await setup();
    clock.set(t0 + 5_000);
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 });
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "PENDING", settled_since: t0 + 5_000 },
      alarm: t0 + 35_000,
    });
  });

  it("run after an eviction, from stored state alone", async () => {
    const { clock, t0, alias, stub, api } = await setup();
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 1 });
    await evictDurableObject(stub);
    clock.set(t0 + 60_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(alias)).toMatchObject({
      row: { settled_status: "PENDING", settled_since: t0 + 60_000 },
      events: 1,
    });
  });
});

describe("eviction", () => {
  it("keeps the candidate, its events and its condition progress", async () => {
    const { alias, stub, api } = await setup({
      fulfillment_condition: { all: [{ event: "a" }, { event: "b" }] },
    });
    await api.post("/v1/events", { candidate_alias: alias, type: "a" });
    const before = okBody(await api.get(`/v1/candidates/${alias}`));
    await evictDurableObject(stub);
    expect((await api.get(`/v1/candidates/${alias}`)).body).toEqual(before);
    const done = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "b" }));
    expect(done.candidate.status).toBe("PENDING");
  });
});

describe("the D1 list index", () => {
  it("catches up through the alarm when its write fails, and never lists what does not exist", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const account = await createAccount();
    const api = client(account);
    const clock = useClock();
    const alias = freshAlias();
    await dbOf(account).exec(`ALTER TABLE candidates RENAME TO candidates_offline`);
    try {
      const res = await api.post("/v1/candidates", {
        customer_uuid: "c",
        candidate_alias: alias,
        contract: contract(),
      });
      expectStatus(res, 201);
      expect((await api.get(`/v1/candidates/${alias}`)).status).toBe(200);
      expect(await stored(alias)).toMatchObject({ row: { indexed_version: 0 }, alarm: clock.now() + 2000 });
    } finally {
      await dbOf(account).exec(`ALTER TABLE candidates_offline RENAME TO candidates`);
    }
    expect(okBody(await api.get(`/v1/candidates`)).data).toEqual([]);
    expect(String(logged.mock.calls[0]?.[0])).toMatch(/downstream write failed/);
    logged.mockRestore();
    clock.advance(2000);
    await runDurableObjectAlarm(objectOf(alias));
    expect(okBody(await api.get(`/v1/candidates`)).data.map((c: any) => c.candidate_alias)).toEqual([alias]);
    expect(await stored(alias)).toMatchObject({ row: { indexed_version: 1 }, alarm: expect.any(Number) });
  });
});
