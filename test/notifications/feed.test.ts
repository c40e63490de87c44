/**
 * GET /v1/notifications (docs/notifications.md): the feed, in the order recorded, per account
 * only.
 */
import { describe, expect, it } from "vitest";
import { createScheduledController, env, runDurableObjectAlarm } from "cloudflare:test";
import worker from "../../src/index";
import {
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  objectOf,
  okBody,
  type TestAccount,
  dbOf,
} from "../support/api";
import { useClock } from "../support/clock";

/** `count` candidates, each fulfilled by an event: one candidate.pending each, in that order. */
async function notifications(account: TestAccount, count: number) {
  const aliases: string[] = [];
  for (let i = 0; i < count; i++) {
    const alias = freshAlias(`feed${i}`);
    await client(account).post("/v1/candidates", {
      customer_uuid: "c",
      candidate_alias: alias,
      contract: contract({ review_window: 0 }),
    });
    await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    aliases.push(alias);
  }
  return aliases;
}

/**
 * Each test that moves the clock starts 100 days after the last one's: the tests of a file share
 * one database, and the purge takes the feed in order, so one test's notifications, recorded 31
 * days on, would otherwise still be young when the next test purges.
 */
let eras = 0;
const nextEra = () => Date.now() + ++eras * 100 * 24 * 3_600_000;

describe("GET /v1/notifications", () => {
  it("lists the account's notifications oldest first, pages with after, filters by type and alias", async () => {
    const account = await createAccount();
    const aliases = await notifications(account, 5);
    const api = client(account);
    const all = okBody(await api.get("/v1/notifications"));
    expect(all.next_cursor).toBeNull();
    expect(all.data.map((n: any) => n.data.candidate.candidate_alias)).toEqual(aliases);
    expect(all.data.every((n: any) => n.type === "candidate.confirmed")).toBe(true);

    const first = okBody(await api.get("/v1/notifications?limit=2"));
    expect(first.data.map((n: any) => n.id)).toEqual(all.data.slice(0, 2).map((n: any) => n.id));
    expect(first.next_cursor).toBe(all.data[1].id);
    const second = okBody(await api.get(`/v1/notifications?limit=2&after=${first.next_cursor}`));
    expect(second.data.map((n: any) => n.id)).toEqual(all.data.slice(2, 4).map((n: any) => n.id));
    const last = okBody(await api.get(`/v1/notifications?limit=2&after=${second.next_cursor}`));
    expect(last).toEqual({ data: [all.data[4]], next_cursor: null });

    expect(okBody(await api.get(`/v1/notifications?candidate_alias=${aliases[3]}`)).data).toEqual([all.data[3]]);
    expect(okBody(await api.get("/v1/notifications?type=candidate.pending")).data).toEqual([]);
    expect((await api.get(`/v1/notifications/${all.data[2].id}`)).body).toEqual(all.data[2]);
  });

  it("tailed with after = the last id seen, gives every notification exactly once, as they come", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    const seen: string[] = [];
    let last: string | undefined;
    const tail = async () => {
      const page = okBody(await client(account).get(`/v1/notifications?limit=3${last ? `&after=${last}` : ""}`));
      for (const n of page.data) seen.push(n.id);
      if (page.data.length > 0) last = page.data[page.data.length - 1].id;
    };
    const aliases: string[] = [];
    for (let round = 0; round < 4; round++) {
      aliases.push(...(await notifications(account, 2)));
      const alias = freshAlias();
      await client(account).post("/v1/candidates", {
        customer_uuid: "c",
        candidate_alias: alias,
        contract: contract({ activity_window: 1, review_window: 1 }),
      });
      clock.advance(2500);
      await runDurableObjectAlarm(objectOf(alias)); // both windows ended: two notifications at once
      await tail();
      await tail();
    }
    const everything = okBody(await client(account).get("/v1/notifications?limit=100")).data.map((n: any) => n.id);
    expect(everything).toHaveLength(16);
    expect(seen).toEqual(everything);
  });

  it("shows one account's notifications only; another's ids are unknown", async () => {
    const owner = await createAccount();
    const [alias] = await notifications(owner, 1);
    const theirs = okBody(await client(owner).get("/v1/notifications")).data[0];
    const intruder = await createAccount();
    const api = client(intruder);
    expect((await api.get("/v1/notifications")).body).toEqual({ data: [], next_cursor: null });
    expect(okBody(await api.get(`/v1/notifications?candidate_alias=${alias}`)).data).toEqual([]);
    const get = await api.get(`/v1/notifications/${theirs.id}`);
    const missing = await api.get(`/v1/notifications/ntf_${"0".repeat(32)}_confirmed`);
    expectStatus(get, 404);
    expectStatus(missing, 404);
    expect(get.body.error.code).toBe("NOTIFICATION_NOT_FOUND");
    expect(get.body.error.message.replace(theirs.id, "ID")).toBe(
      missing.body.error.message.replace(`ntf_${"0".repeat(32)}_confirmed`, "ID"),
    );
    const after = await api.get(`/v1/notifications?after=${theirs.id}`);
    expectStatus(after, 400);
    expect(after.body.error.details).toEqual([{ path: "after", message: expect.any(String) }]);
  });

  it("validates its query", async () => {
    const api = client(await createAccount());
    for (const [query, path] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["type=candidate.open", "type"],
      ["candidate_alias=short", "candidate_alias"],
      ["other=1", "other"],
    ]) {
      const res = await api.get(`/v1/notifications?${query}`);
      expectStatus(res, 400, query);
      expect(res.body.error.details?.map((d) => d.path)).toContain(path);
    }
  });

  it("keeps an account's newest notification past 30 days, so a quiet account's reader can tail on", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    await notifications(account, 2);
    const last = okBody(await client(account).get("/v1/notifications")).data[1].id;
    clock.advance(31 * 24 * 3_600_000);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    const tail = await client(account).get(`/v1/notifications?after=${last}`);
    expectStatus(tail, 200);
    expect(tail.body).toEqual({ data: [], next_cursor: null });
    expect(okBody(await client(account).get("/v1/notifications")).data.map((n: any) => n.id)).toEqual([last]);
  });

  it("takes an id that aged out of the feed as after: its reader goes on from the oldest notification kept", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    await notifications(account, 3);
    const seen = okBody(await client(account).get("/v1/notifications?limit=1")).data[0].id;
    clock.advance(31 * 24 * 3_600_000);
    const [fresh] = await notifications(account, 1);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    for (const filter of ["", "&type=candidate.confirmed", `&candidate_alias=${fresh}`]) {
      const tail = await client(account).get(`/v1/notifications?after=${seen}${filter}`);
      expectStatus(tail, 200, filter);
      expect(
        tail.body.data.map((n: any) => n.data.candidate.candidate_alias),
        filter,
      ).toEqual([fresh]);
    }
    expect((await client(account).get(`/v1/notifications/${seen}`)).status).toBe(404);
    // Still refused: transitions of the account's own candidates that never happened (these went
    // straight to CONFIRMED; the fresh one is still OPEN) or too recently to have aged out.
    const freshId = okBody(await client(account).get(`/v1/candidates/${fresh}`)).id.replaceAll("-", "");
    const neverOrRecent = [
      seen.replace("_confirmed", "_pending"),
      seen.replace("_confirmed", "_failed"),
      `ntf_${freshId}_failed`,
    ];
    for (const id of neverOrRecent) {
      const res = await client(account).get(`/v1/notifications?after=${id}`);
      expectStatus(res, 400, id);
    }
    // And the id of another account's transition, and ids no candidate has.
    const intruder = client(await createAccount());
    for (const id of [seen, `ntf_${"0".repeat(32)}_pending`, "ntf_nonsense"]) {
      const res = await intruder.get(`/v1/notifications?after=${id}`);
      expectStatus(res, 400, id);
      expect(res.body.error.details).toEqual([{ path: "after", message: expect.any(String) }]);
    }
  });

  it("takes an aged-out candidate.pending id as after too", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    const alias = freshAlias("pending-cursor");
    await client(account).post("/v1/candidates", {
      customer_uuid: "c",
      candidate_alias: alias,
      contract: contract({ review_window: 3600 }),
    });
    await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    const [pending] = okBody(await client(account).get("/v1/notifications")).data;
    expect(pending.type).toBe("candidate.pending");
    clock.advance(31 * 24 * 3_600_000);
    const [fresh] = await notifications(account, 1);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    expect((await client(account).get(`/v1/notifications/${pending.id}`)).status).toBe(404);
    const tail = await client(account).get(`/v1/notifications?after=${pending.id}&type=candidate.confirmed`);
    expectStatus(tail, 200);
    expect(tail.body.data.map((n: any) => n.data.candidate.candidate_alias)).toContain(fresh);
  });

  it("takes an aged-out candidate.pending id of a PENDING that lasted no time: resolved as it began", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    const alias = freshAlias("pending-no-time");
    await client(account).post("/v1/candidates", {
      customer_uuid: "c",
      candidate_alias: alias,
      contract: contract({ activity_window: 60, review_window: 3600 }),
    });
    clock.advance(60_000); // the very instant the activity window ends: PENDING, then resolved
    expectStatus(await client(account).post(`/v1/candidates/${alias}/resolve`, { outcome: "FAILED" }), 200);
    const feed = okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;
    expect(feed.map((n: any) => [n.type, n.timestamp])).toEqual([
      ["candidate.pending", new Date(clock.now()).toISOString()],
      ["candidate.failed", new Date(clock.now()).toISOString()],
    ]);
    clock.advance(31 * 24 * 3_600_000);
    const [fresh] = await notifications(account, 1);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    const tail = await client(account).get(`/v1/notifications?after=${feed[0].id}`);
    expectStatus(tail, 200);
    expect(tail.body.data.map((n: any) => n.data.candidate.candidate_alias)).toContain(fresh);
  });

  it("purges in feed order: a reader tailing across the purge never sees an id twice", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    await notifications(account, 3);
    const [n1, n2, n3] = okBody(await client(account).get("/v1/notifications")).data.map((n: any) => n.id);
    const read = okBody(await client(account).get("/v1/notifications?limit=2"));
    expect(read.next_cursor).toBe(n2);
    clock.advance(31 * 24 * 3_600_000);
    // Two flushes that committed in the other order than their clocks: n1 is first in the feed
    // but was stamped later, inside the 30 days.
    await dbOf(account)
      .prepare(`UPDATE notifications SET recorded_at = ? WHERE id = ?`)
      .bind(clock.now() - 29 * 24 * 3_600_000, n1)
      .run();
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    const tail = okBody(await client(account).get(`/v1/notifications?after=${read.next_cursor}`));
    expect(tail.data.map((n) => n.id)).toEqual([n3]);
    // Once n1 is past its 30 days too, the purge takes everything before the account's newest.
    clock.advance(2 * 24 * 3_600_000);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    expect(okBody(await client(account).get("/v1/notifications")).data.map((n: any) => n.id)).toEqual([n3]);
    expect(okBody(await client(account).get(`/v1/notifications?after=${n2}`)).data.map((n: any) => n.id)).toEqual([n3]);
  });

  it("keeps notifications 30 days: the hourly purge removes older ones", async () => {
    const account = await createAccount();
    const clock = useClock(nextEra());
    await notifications(account, 1);
    clock.advance(30 * 24 * 3_600_000 + 1000);
    await notifications(account, 1);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    expect(okBody(await client(account).get("/v1/notifications")).data).toHaveLength(1);
  });
});
