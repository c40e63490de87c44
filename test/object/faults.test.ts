/**
 * Faults survived: objects aborted or evicted mid-burst and while alarms are due, alarms that
 * throw, and a D1 index that is unavailable when a change is accepted.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { abortAllDurableObjects, evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import {
  call,
  client,
  createAccount,
  createCandidate,
  expectStatus,
  okBody,
  type TestAccount,
  inCandidate,
  objectOf,
  dbOf,
} from "../support/api";
import { iso, useClock } from "../support/clock";
import { CandidateObject } from "../../src/candidate/object";
import { candidateIndexStatement } from "../../src/db/candidate-index";

/** A candidate whose windows end a minute and then half a minute on. */
const candidate = async (account: TestAccount, over: Record<string, unknown> = {}) =>
  (await createCandidate(account, { activity_window: 60, review_window: 30, ...over })).alias;

const sendEvent = (account: TestAccount, alias: string, i: number) =>
  call("POST", "/v1/events", {
    token: account.token,
    json: { candidate_alias: alias, type: "purchase", value: i },
    headers: { "Idempotency-Key": `${alias}-event-${i}` },
  });

/** The faults below are logged by the service; capture the log to check it and keep output clean. */
let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    errorLog.push(args.map(String).join(" "));
  });
});
afterEach(() => vi.restoreAllMocks());

describe("a burst of events with crashes and an abort midway", () => {
  it("loses no accepted event and transitions once, once clients retry with their keys", async () => {
    const account = await createAccount();
    const alias = await candidate(account, { fulfillment_condition: { event: "purchase", gte: 10 } });
    const count = 40;
    // Every 4th event is committed, then the object crashes before its answer gets out.
    const original = CandidateObject.prototype.recordEvent;
    let calls = 0;
    CandidateObject.prototype.recordEvent = async function (this: CandidateObject, ...args) {
      const result = await original.apply(this, args);
      if (++calls % 4 === 0) throw new Error("crashed after commit");
      return result;
    };
    let first;
    try {
      const firstHalf = Array.from({ length: count / 2 }, (_, i) => sendEvent(account, alias, i));
      await abortAllDurableObjects(); // and the object is reset while the burst is in flight
      const secondHalf = Array.from({ length: count / 2 }, (_, i) => sendEvent(account, alias, count / 2 + i));
      first = await Promise.all([...firstHalf, ...secondHalf]);
    } finally {
      CandidateObject.prototype.recordEvent = original;
    }
    const failed = first.flatMap((r, i) => (r.status === 201 ? [] : [i]));
    expect(failed.length).toBeGreaterThanOrEqual(5);
    expect(errorLog.filter((line) => line.includes("crashed after commit"))).toHaveLength(failed.length);
    for (const i of failed) expect(first[i].body.error.code).toBe("INTERNAL_ERROR");

    // Every client whose request failed retries it with the same key.
    const retried = await Promise.all(first.map((r, i) => (r.status === 201 ? r : sendEvent(account, alias, i))));
    for (const r of retried) expectStatus(r, 201);

    const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
    const values = read.events.map((e: any) => e.value).sort((a: number, b: number) => a - b);
    expect(values).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(read.events.filter((e: any) => e.matched)).toHaveLength(1);
    const winner = read.events.find((e) => e.matched)!;
    expect(winner.value).toBeGreaterThanOrEqual(10);
    expect(read).toMatchObject({ status: "PENDING", status_since: winner.received_at, scheduled_outcome: "CONFIRMED" });
    // A retried request answers with the event the crashed attempt recorded.
    for (const i of failed) expect(read.events.map((e: any) => e.id)).toContain(retried[i].body.event.id);
  });
});

describe("eviction and abort while an alarm is due", () => {
  it("keeps reads exact before the alarm runs, and the alarm persists the boundary afterwards", async () => {
    const account = await createAccount();
    const api = client(account);
    const clock = useClock();
    const t0 = clock.now();
    const alias = await candidate(account);
    await api.post("/v1/events", { candidate_alias: alias, type: "ping" });
    const stub = objectOf(alias);

    clock.set(t0 + 75_000); // the activity window ended 15 s ago; the alarm has not run
    await abortAllDurableObjects();
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(read).toMatchObject({ status: "PENDING", status_since: iso(t0 + 60_000), scheduled_outcome: "FAILED" });
    expect(read.events).toHaveLength(1);
    const listed = okBody(await api.get(`/v1/candidates?status=PENDING`)).data.map((c: any) => c.candidate_alias);
    expect(listed).toEqual([alias]);

    await evictDurableObject(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const settled = await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec(`SELECT settled_status, settled_since FROM candidate`).one(),
    );
    expect(settled).toEqual({ settled_status: "PENDING", settled_since: t0 + 60_000 });
    expect((await api.get(`/v1/candidates/${alias}`)).body).toEqual(read);
  });
});

describe("an alarm that throws", () => {
  it("is retried, and the retry and any later run change nothing more", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const alias = await candidate(account);
    const stub = objectOf(alias);
    const snapshot = () =>
      inCandidate(alias, async (_i, state) => ({
        row: state.storage.sql.exec(`SELECT * FROM candidate`).one(),
        alarm: await state.storage.getAlarm(),
      }));

    clock.set(t0 + 61_000);
    // Fail the alarm after its first write, as a storage or network fault would.
    await inCandidate(alias, (instance: any) => {
      instance.syncDownstream = async () => {
        throw new Error("injected fault");
      };
    });
    await expect(inCandidate(alias, (instance) => instance.alarm())).rejects.toThrow("injected fault");
    expect((await snapshot()).alarm).not.toBeNull(); // still armed: the runtime retries it

    await evictDurableObject(stub); // a fresh instance, without the injected fault
    clock.set(t0 + 63_000); // the platform's retry comes a little later
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const afterRetry = await snapshot();
    expect(afterRetry.row).toMatchObject({ settled_status: "PENDING", settled_since: t0 + 60_000 });
    expect(afterRetry.alarm).toBe(t0 + 90_000);

    await inCandidate(alias, (instance) => instance.alarm()); // a duplicate delivery
    expect(await snapshot()).toEqual(afterRetry);
  });
});

describe("the D1 index unavailable when a change is accepted", () => {
  it("keeps the event and the transition, and the index catches up from the alarm", async () => {
    const account = await createAccount();
    const api = client(account);
    const clock = useClock();
    const alias = await candidate(account);

    await dbOf(account).exec(`ALTER TABLE candidates RENAME TO candidates_offline`);
    let accepted;
    try {
      accepted = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 });
    } finally {
      await dbOf(account).exec(`ALTER TABLE candidates_offline RENAME TO candidates`);
    }
    expectStatus(accepted, 201);
    expect(accepted.body.candidate.status).toBe("PENDING");
    expect(errorLog.join("\n")).toMatch(/downstream write failed; the alarm retries it/);
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).status).toBe("PENDING");
    // The index still holds the version before the event.
    expect(okBody(await api.get(`/v1/candidates?status=PENDING`)).data).toEqual([]);

    clock.advance(2000);
    await runDurableObjectAlarm(objectOf(alias));
    const listed = okBody(await api.get(`/v1/candidates?status=PENDING`)).data;
    expect(listed.map((c: any) => c.candidate_alias)).toEqual([alias]);
    expect(listed[0]).toEqual(accepted.body.candidate);
  });

  it("never lets an older index write overwrite a newer one", async () => {
    const account = await createAccount();
    const api = client(account);
    const alias = await candidate(account);
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 });
    // Replay the creation-time index row (version 1) as a late, duplicated write would.
    await inCandidate(alias, async (instance: any) => {
      const current = instance.load().record;
      const stale = {
        ...current,
        timeline: { ...current.timeline, openUntil: current.timeline.openUntil + 999_999 },
        version: 1,
      };
      await candidateIndexStatement(dbOf(account), stale, "OPEN").run();
    });
    const listed = okBody(await api.get(`/v1/candidates?status=PENDING`)).data;
    expect(listed.map((c: any) => c.candidate_alias)).toEqual([alias]);
  });
});

describe("a transaction that fails", () => {
  it("leaves memory as storage left it: nothing of the failed change is seen or saved later", async () => {
    const account = await createAccount();
    const alias = await candidate(account, { fulfillment_condition: { event: "purchase", gte: 10 } });
    // Recording the batch's Idempotency-Key fails (as a value too large for storage would).
    await inCandidate(alias, (instance: any) => {
      const store = instance.store;
      const original = store.rememberKey.bind(store);
      store.rememberKey = (...args: [string, string, ...unknown[]]) => {
        if (args[1] === "batch-key") throw new Error("string or blob too big");
        return original(...args);
      };
    });
    const keyed = await call("POST", "/v1/events/batch", {
      token: account.token,
      json: { events: [{ candidate_alias: alias, type: "purchase", value: 50 }] },
      headers: { "Idempotency-Key": "batch-key" },
    });
    // One candidate's failure answers its own items 500; the batch itself still answers 200.
    expectStatus(keyed, 200);
    expect(keyed.body.data.map((r: any) => [r.status, r.error?.code])).toEqual([[500, "INTERNAL_ERROR"]]);
    // The next event finds the candidate as storage has it: OPEN, no event; it is the one that fulfils.
    const next = okBody(
      await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 60 }),
    );
    expect(next.event.matched).toBe(true);
    expect(next.candidate.status).toBe("PENDING");
    const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
    expect(read.events.map((e: any) => e.value)).toEqual([60]);
    const [pending] = okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;
    expect(pending.data.cause).toEqual({ kind: "event", event_id: next.event.id });
  });
});

describe("downstream writes that keep failing", () => {
  it("are retried further apart each time, up to 5 minutes", async () => {
    const account = await createAccount();
    const clock = useClock();
    const alias = await candidate(account);
    await inCandidate(alias, (instance: any) => {
      instance.env = {
        ...instance.env,
        NOTIFICATIONS: { sendBatch: async () => Promise.reject(new Error("queue unavailable")) },
      };
    });
    await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 });
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const alarm = (await inCandidate(alias, (_i, state) => state.storage.getAlarm()))!;
      delays.push(alarm - clock.now());
      clock.set(alarm);
      await inCandidate(alias, (instance) => instance.alarm());
    }
    expect(delays).toEqual([2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000]);
  });
});
