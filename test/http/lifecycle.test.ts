/**
 * Status, status_since and scheduled_outcome are exact at the instant of each read, in the single
 * read and in the list with its status filter, whether or not any alarm has run.
 */
import { describe, expect, it } from "vitest";
import { client, contract, createAccount, expectStatus, freshAlias, okBody, type Contract } from "../support/api";
import { iso, useClock } from "../support/clock";

async function setup(over: Partial<Contract> = {}) {
  const api = client(await createAccount());
  const clock = useClock();
  const t0 = clock.now();
  const alias = freshAlias();
  const created = await api.post("/v1/candidates", {
    customer_uuid: "cust-1",
    candidate_alias: alias,
    contract: contract({ activity_window: 60, review_window: 30, ...over }),
  });
  expectStatus(created, 201);
  /** The candidate as the single read and as each status-filtered list see it. */
  const observe = async () => {
    const single = okBody(await api.get(`/v1/candidates/${alias}`));
    const listed: Record<string, boolean> = {};
    for (const status of ["OPEN", "PENDING", "CONFIRMED", "FAILED"]) {
      const page = okBody(await api.get(`/v1/candidates?status=${status}`));
      listed[status] = page.data.some((c) => c.candidate_alias === alias);
    }
    const inList = okBody(await api.get(`/v1/candidates`)).data.find((c) => c.candidate_alias === alias);
    return { single, listed, inList };
  };
  const expectSeen = async (status: string, since: number, scheduled: string | null) => {
    const { single, listed, inList } = await observe();
    expect(single).toMatchObject({ status, status_since: iso(since), scheduled_outcome: scheduled });
    const { events: _events, condition_progress: _progress, ...withoutEvents } = single;
    expect(inList).toEqual(withoutEvents);
    expect(
      Object.entries(listed)
        .filter(([, v]) => v)
        .map(([k]) => k),
    ).toEqual([status]);
  };
  return { api, clock, t0, alias, created: created.body, expectSeen };
}

describe("lifecycle", () => {
  it("creates OPEN with a null scheduled outcome and the documented timestamps", async () => {
    const { created, t0 } = await setup();
    expect(created).toMatchObject({
      status: "OPEN",
      status_since: iso(t0),
      scheduled_outcome: null,
      created_at: iso(t0),
      activity_ends_at: iso(t0 + 60_000),
      review_ends_at: null,
      schema_id: null,
    });
    expect(created).not.toHaveProperty("events");
  });

  it("times out into PENDING with the timeout outcome at exactly open_until, then FAILED", async () => {
    const { api, alias, clock, t0, expectSeen } = await setup({ timeout_outcome: "fail" });
    clock.set(t0 + 59_999);
    await expectSeen("OPEN", t0, null);
    clock.set(t0 + 60_000);
    await expectSeen("PENDING", t0 + 60_000, "FAILED");
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).review_ends_at).toBe(iso(t0 + 90_000));
    clock.set(t0 + 89_999);
    await expectSeen("PENDING", t0 + 60_000, "FAILED");
    clock.set(t0 + 90_000);
    await expectSeen("FAILED", t0 + 90_000, "FAILED");
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).review_ends_at).toBe(iso(t0 + 90_000));
  });

  it("times out to CONFIRMED when the timeout outcome is confirm", async () => {
    const { clock, t0, expectSeen } = await setup({ timeout_outcome: "confirm" });
    clock.set(t0 + 60_000);
    await expectSeen("PENDING", t0 + 60_000, "CONFIRMED");
    clock.set(t0 + 3_600_000);
    await expectSeen("CONFIRMED", t0 + 90_000, "CONFIRMED");
  });

  it("goes PENDING at the fulfilling event, CONFIRMED a review window later", async () => {
    const { api, clock, t0, alias, expectSeen } = await setup();
    clock.set(t0 + 10_000);
    const ev = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 });
    expectStatus(ev, 201);
    expect(ev.body.event.matched).toBe(true);
    expect(ev.body.candidate).toMatchObject({
      status: "PENDING",
      status_since: iso(t0 + 10_000),
      scheduled_outcome: "CONFIRMED",
      activity_ends_at: iso(t0 + 10_000),
      review_ends_at: iso(t0 + 40_000),
    });
    await expectSeen("PENDING", t0 + 10_000, "CONFIRMED");
    clock.set(t0 + 40_000);
    await expectSeen("CONFIRMED", t0 + 40_000, "CONFIRMED");
  });

  it("accepts a fulfilling event at open_until - 1 ms", async () => {
    const { api, clock, t0, alias } = await setup();
    clock.set(t0 + 59_999);
    const ev = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 }));
    expect(ev.event.matched).toBe(true);
    expect(ev.candidate).toMatchObject({
      status: "PENDING",
      status_since: iso(t0 + 59_999),
      scheduled_outcome: "CONFIRMED",
    });
  });

  it("records but does not count an event at exactly open_until", async () => {
    const { api, clock, t0, alias, expectSeen } = await setup();
    clock.set(t0 + 60_000);
    const ev = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 });
    expectStatus(ev, 201);
    expect(ev.body.event.matched).toBe(false);
    expect(ev.body.candidate).toMatchObject({ status: "PENDING", scheduled_outcome: "FAILED" });
    await expectSeen("PENDING", t0 + 60_000, "FAILED");
  });

  it("with review_window 0 goes from OPEN straight to CONFIRMED at the fulfilling event", async () => {
    const { api, clock, t0, alias, expectSeen } = await setup({ review_window: 0 });
    clock.set(t0 + 5_000);
    const ev = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 }));
    expect(ev.candidate).toMatchObject({
      status: "CONFIRMED",
      status_since: iso(t0 + 5_000),
      scheduled_outcome: "CONFIRMED",
      activity_ends_at: iso(t0 + 5_000),
      review_ends_at: null, // never PENDING: no review
    });
    await expectSeen("CONFIRMED", t0 + 5_000, "CONFIRMED");
  });

  it("with review_window 0 times out straight to the final status", async () => {
    const { api, alias, clock, t0, expectSeen } = await setup({ review_window: 0, timeout_outcome: "fail" });
    clock.set(t0 + 60_000);
    await expectSeen("FAILED", t0 + 60_000, "FAILED");
    expect(okBody(await api.get(`/v1/candidates/${alias}`))).toMatchObject({
      activity_ends_at: iso(t0 + 60_000),
      review_ends_at: null,
    });
  });

  it("ignores events after the transition: recorded with matched false, nothing changes", async () => {
    const { api, clock, t0, alias } = await setup();
    clock.set(t0 + 1_000);
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 });
    clock.set(t0 + 2_000);
    const again = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 200 }));
    expect(again.event.matched).toBe(false);
    expect(again.candidate).toMatchObject({ status: "PENDING", status_since: iso(t0 + 1_000) });
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(read.events.map((e) => [e.value, e.matched])).toEqual([
      [100, true],
      [200, false],
    ]);
  });
});
