/**
 * The hand-off from a candidate's outbox to the notifications queue happens once per transition,
 * however many requests, alarms and sweeps reach the candidate at the same time: duplicates come
 * only from a failure (docs/notifications.md).
 */
import { describe, expect, it, vi } from "vitest";
import { createScheduledController, env, runDurableObjectAlarm } from "cloudflare:test";
import worker from "../../src/index";
import { SWEEP_CRON } from "../../src/notifications/sweep";
import { client, createAccount, createCandidate, inCandidate, objectOf, okBody } from "../support/api";
import { useClock } from "../support/clock";

/** Records every notification id the candidate's object hands to the queue, and passes them on. */
async function watchHandOffs(alias: string) {
  const sent: string[] = [];
  await inCandidate(alias, (instance: any) => {
    const queue = instance.env.NOTIFICATIONS;
    instance.env = {
      ...instance.env,
      NOTIFICATIONS: {
        sendBatch: async (messages: { body: { id: string } }[]) => {
          sent.push(...messages.map((m) => m.body.id));
          return queue.sendBatch(messages);
        },
      },
    };
  });
  return sent;
}

describe("the outbox's hand-off to the queue", () => {
  it("is once per transition when ten events reach the candidate together, one of them fulfilling it", async () => {
    const account = await createAccount();
    const { alias } = await createCandidate(account, { review_window: 600 });
    const sent = await watchHandOffs(alias);
    const events = Array.from({ length: 10 }, (_, i) => ({
      candidate_alias: alias,
      type: "purchase",
      value: i === 3 ? 150 : 1,
    }));
    const answers = await Promise.all(events.map((event) => client(account).post("/v1/events", event)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    const feed = okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;
    expect(feed.map((n: any) => n.type)).toEqual(["candidate.pending"]);
    expect(sent).toEqual([feed[0].id]);
  });

  it("keeps one candidate's notifications in order in the feed while an earlier hand-off is slow or fails", async () => {
    for (const fault of ["slow", "fails"] as const) {
      const account = await createAccount();
      const { alias } = await createCandidate(account, { review_window: 600 });
      // The next D1 transaction of the object (the fulfilling event's) waits, or fails.
      await inCandidate(alias, (instance: any) => {
        const db: D1Database = instance.env[account.shard];
        let calls = 0;
        instance.env = {
          ...instance.env,
          // The account's shard, reached through a session.
          [account.shard]: Object.assign(Object.create(db), {
            withSession: (start: string) => {
              const session = db.withSession(start);
              return {
                prepare: (sql: string) => session.prepare(sql),
                getBookmark: () => session.getBookmark(),
                batch: async (statements: D1PreparedStatement[]) => {
                  if (++calls === 1) {
                    if (fault === "fails") throw new Error("D1 unavailable");
                    await new Promise((resolve) => setTimeout(resolve, 300));
                  }
                  return session.batch(statements);
                },
              };
            },
          }),
        };
      });
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const fulfilling = client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await client(account).post(`/v1/candidates/${alias}/resolve`, { outcome: "CONFIRMED" });
      await fulfilling;
      if (fault === "fails") await runDurableObjectAlarm(objectOf(alias));
      log.mockRestore();
      const feed = okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;
      expect(
        feed.map((n: any) => n.type),
        fault,
      ).toEqual(["candidate.pending", "candidate.confirmed"]);
    }
  });

  it("is once per transition when alarms and sweeps overlap on a window's end", async () => {
    const account = await createAccount();
    const clock = useClock();
    const { alias } = await createCandidate(account, { activity_window: 60, review_window: 0 });
    const sent = await watchHandOffs(alias);
    clock.advance(120_000);
    const sweep = () => worker.scheduled(createScheduledController({ cron: SWEEP_CRON }), env);
    const settle = () => inCandidate(alias, (instance) => instance.settle());
    await Promise.all([
      runDurableObjectAlarm(objectOf(alias)),
      sweep(),
      settle(),
      settle(),
      settle(),
      sweep(),
      settle(),
    ]);
    const feed = okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;
    expect(feed.map((n: any) => n.type)).toEqual(["candidate.failed"]);
    expect(sent).toEqual([feed[0].id]);
  });
});
