/**
 * Notifications are recorded with the change that causes them, once per status entered, with a
 * stable id, whatever happens to alarms, objects and the downstream writes (docs/notifications.md).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  abortAllDurableObjects,
  createScheduledController,
  env,
  evictDurableObject,
  runDurableObjectAlarm,
} from "cloudflare:test";
import worker from "../../src/index";
import { SWEEP_CRON } from "../../src/notifications/sweep";
import {
  client,
  createAccount,
  createCandidate,
  expectStatus,
  inCandidate,
  objectOf,
  okBody,
  type Contract,
  type TestAccount,
  dbOf,
} from "../support/api";
import { iso, useClock } from "../support/clock";

/** A candidate whose windows end a minute and then half a minute on. */
const candidate = (account: TestAccount, over: Partial<Contract> = {}) =>
  createCandidate(account, { activity_window: 60, review_window: 30, ...over });

const feedOf = async (account: TestAccount, alias: string) =>
  okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;

/** The faults below are logged by the service; capture the log to check it and keep output clean. */
let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errorLog.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

describe("a notification per status entered", () => {
  it("an event that fulfils: candidate.pending at its instant, caused by that event; then confirmed at the review end", async () => {
    const account = await createAccount();
    const clock = useClock();
    const { alias } = await candidate(account);
    clock.advance(5000);
    const hit = okBody(
      await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }),
    );
    const [pending] = await feedOf(account, alias);
    expect(pending).toEqual({
      id: expect.stringMatching(/^ntf_[0-9a-f]{32}_pending$/),
      type: "candidate.pending",
      timestamp: hit.event.received_at,
      data: { candidate: hit.candidate, cause: { kind: "event", event_id: hit.event.id } },
    });

    clock.advance(30_000);
    await runDurableObjectAlarm(objectOf(alias));
    const [, confirmed] = await feedOf(account, alias);
    const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
    const { events: _events, condition_progress: _progress, ...candidateNow } = read;
    expect(confirmed).toEqual({
      id: pending.id.replace(/_pending$/, "_confirmed"),
      type: "candidate.confirmed",
      timestamp: read.status_since,
      data: { candidate: candidateNow, cause: { kind: "review_window_ended" } },
    });
    expect(candidateNow).toMatchObject({ status: "CONFIRMED", status_since: iso(clock.now()) });
  });

  it("windows that end unfulfilled: pending (activity_window_ended), then the timeout outcome", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const { alias } = await candidate(account, { timeout_outcome: "fail" });
    clock.set(t0 + 60_000);
    await runDurableObjectAlarm(objectOf(alias));
    clock.set(t0 + 90_000);
    await runDurableObjectAlarm(objectOf(alias));
    const notes = await feedOf(account, alias);
    expect(
      notes.map((n) => [
        n.type,
        n.timestamp,
        n.data.cause.kind,
        n.data.candidate.status,
        n.data.candidate.scheduled_outcome,
      ]),
    ).toEqual([
      ["candidate.pending", iso(t0 + 60_000), "activity_window_ended", "PENDING", "FAILED"],
      ["candidate.failed", iso(t0 + 90_000), "review_window_ended", "FAILED", "FAILED"],
    ]);
  });

  it("a resolve: the final status now, caused by the resolve", async () => {
    const account = await createAccount();
    const clock = useClock();
    const { alias } = await candidate(account);
    await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    clock.advance(1000);
    const resolved = await client(account).post(`/v1/candidates/${alias}/resolve`, { outcome: "FAILED" });
    const [, failed] = await feedOf(account, alias);
    expect(failed).toMatchObject({
      type: "candidate.failed",
      timestamp: iso(clock.now()),
      data: { candidate: resolved.body, cause: { kind: "resolved" } },
    });
  });

  it("a review window of 0 and a timeout: the final status at the window's end, caused by it", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const { alias } = await candidate(account, { review_window: 0, timeout_outcome: "confirm" });
    clock.set(t0 + 60_000);
    await runDurableObjectAlarm(objectOf(alias));
    const notes = await feedOf(account, alias);
    expect(notes.map((n) => [n.type, n.timestamp, n.data.cause])).toEqual([
      ["candidate.confirmed", iso(t0 + 60_000), { kind: "activity_window_ended" }],
    ]);
  });

  it("a review window of 0: straight to the final status, one notification", async () => {
    const account = await createAccount();
    const { alias } = await candidate(account, { review_window: 0 });
    const hit = okBody(
      await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }),
    );
    const notes = await feedOf(account, alias);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      type: "candidate.confirmed",
      data: { cause: { kind: "event", event_id: hit.event.id } },
    });
  });

  it("a fulfilling event in a batch names that event as the cause", async () => {
    const account = await createAccount();
    const { alias } = await candidate(account);
    const res = okBody(
      await client(account).post("/v1/events/batch", {
        events: [1, 2, 150, 3].map((value) => ({ candidate_alias: alias, type: "purchase", value })),
      }),
    );
    const fulfilling = res.data[2];
    expectStatus(fulfilling, 201);
    const [pending] = await feedOf(account, alias);
    expect(pending.data.cause).toEqual({ kind: "event", event_id: fulfilling.event.id });
  });
});

describe("a transition recorded late", () => {
  it("is notified as the candidate was at its instant, not with the change that followed", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const { alias } = await candidate(account, { timeout_outcome: "confirm", review_window: 600 });
    clock.set(t0 + 61_000); // the activity window ended a second ago; its alarm has not run
    const resolved = await client(account).post(`/v1/candidates/${alias}/resolve`, { outcome: "FAILED" });
    expectStatus(resolved, 200);
    const [pending, failed] = await feedOf(account, alias);
    expect(pending).toMatchObject({
      type: "candidate.pending",
      timestamp: iso(t0 + 60_000),
      data: {
        cause: { kind: "activity_window_ended" },
        candidate: { status: "PENDING", scheduled_outcome: "CONFIRMED", review_ends_at: iso(t0 + 660_000) },
      },
    });
    expect(failed).toMatchObject({
      type: "candidate.failed",
      timestamp: iso(t0 + 61_000),
      data: { cause: { kind: "resolved" }, candidate: resolved.body },
    });
  });
});

describe("one id per transition", () => {
  it("across alarms that run late, twice and after an eviction", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const { alias } = await candidate(account);
    clock.set(t0 + 95_000); // late: both windows ended
    await evictDurableObject(objectOf(alias));
    await runDurableObjectAlarm(objectOf(alias));
    await inCandidate(alias, (instance) => instance.alarm());
    await abortAllDurableObjects();
    await inCandidate(alias, (instance) => instance.alarm());
    const notes = await feedOf(account, alias);
    expect(notes.map((n) => [n.type, n.timestamp])).toEqual([
      ["candidate.pending", iso(t0 + 60_000)],
      ["candidate.failed", iso(t0 + 90_000)],
    ]);
    // The earlier status is notified as it was at its instant.
    expect(notes[0].data.candidate).toMatchObject({ status: "PENDING", status_since: iso(t0 + 60_000) });
  });

  it("when an alarm never comes: the sweep catches up, once", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const { alias } = await candidate(account, { review_window: 120 });
    await inCandidate(alias, (_i, state) => state.storage.deleteAlarm()); // as if lost while the service was down
    clock.set(t0 + 60_000 + 5_000); // inside the sweep's grace: left to the alarm
    await worker.scheduled(createScheduledController({ cron: SWEEP_CRON }), env);
    expect(await feedOf(account, alias)).toEqual([]);
    clock.set(t0 + 60_000 + 45_000);
    await worker.scheduled(createScheduledController({ cron: SWEEP_CRON }), env);
    await worker.scheduled(createScheduledController({ cron: SWEEP_CRON }), env);
    const notes = await feedOf(account, alias);
    expect(notes.map((n) => [n.type, n.timestamp, n.data.cause.kind])).toEqual([
      ["candidate.pending", iso(t0 + 60_000), "activity_window_ended"],
    ]);
    const indexed = await dbOf(account)
      .prepare(`SELECT settled_status, settle_due_at FROM candidates WHERE alias = ?`)
      .bind(alias)
      .first();
    expect(indexed).toEqual({ settled_status: "PENDING", settle_due_at: t0 + 180_000 });
  });

  it("when the feed is down at the change: kept in the object's outbox, delivered by the alarm's retry, once", async () => {
    const account = await createAccount();
    const clock = useClock();
    const { alias } = await candidate(account);
    await dbOf(account).exec(`ALTER TABLE notifications RENAME TO notifications_offline`);
    let hit;
    try {
      hit = await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    } finally {
      await dbOf(account).exec(`ALTER TABLE notifications_offline RENAME TO notifications`);
    }
    expectStatus(hit, 201);
    expect(errorLog.join("\n")).toMatch(/downstream write failed; the alarm retries it/);
    expect(await feedOf(account, alias)).toEqual([]);
    clock.advance(2000);
    await runDurableObjectAlarm(objectOf(alias));
    await runDurableObjectAlarm(objectOf(alias)).catch(() => false);
    const notes = await feedOf(account, alias);
    expect(notes).toHaveLength(1);
    expect(notes[0].data.cause).toEqual({ kind: "event", event_id: hit.body.event.id });
  });

  it("when the queue refuses the send after the feed has it: sent again, the same notification", async () => {
    const account = await createAccount();
    const clock = useClock();
    const { alias } = await candidate(account);
    const sent: string[] = [];
    await inCandidate(alias, (instance: any) => {
      let calls = 0;
      const queue = instance.env.NOTIFICATIONS;
      instance.env = {
        ...instance.env,
        NOTIFICATIONS: {
          sendBatch: async (messages: { body: { id: string } }[]) => {
            if (++calls === 1) throw new Error("queue unavailable");
            sent.push(...messages.map((m) => m.body.id));
            return queue.sendBatch(messages);
          },
        },
      };
    });
    await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    const [pending] = await feedOf(account, alias);
    expect(sent).toEqual([]);
    clock.advance(2000);
    await runDurableObjectAlarm(objectOf(alias));
    expect(sent).toEqual([pending.id]);
    expect(await feedOf(account, alias)).toHaveLength(1);
    const outbox = await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec(`SELECT id, flushed FROM outbox`).toArray(),
    );
    expect(outbox).toEqual([{ id: pending.id, flushed: 1 }]);
  });

  it("an index row from before notifications existed is repaired by the sweep", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const { alias } = await candidate(account, { review_window: 0 });
    clock.set(t0 + 61_000);
    await runDurableObjectAlarm(objectOf(alias));
    // As a row written before migration 0004 reads: settled OPEN, though the object is final.
    await dbOf(account).prepare(`UPDATE candidates SET settled_status = 'OPEN' WHERE alias = ?`).bind(alias).run();
    clock.set(t0 + 120_000);
    await worker.scheduled(createScheduledController({ cron: SWEEP_CRON }), env);
    const row = await dbOf(account)
      .prepare(`SELECT settled_status, settle_due_at FROM candidates WHERE alias = ?`)
      .bind(alias)
      .first();
    if ((row as any).settled_status !== "FAILED") console.log("LOG", errorLog.join("\n"));
    expect(row).toEqual({ settled_status: "FAILED", settle_due_at: null });
    expect(await feedOf(account, alias)).toHaveLength(1);
  });
});
