/** POST /v1/events/batch: per-item results, order, item keys (docs/idempotency.md), limits. */
import { describe, expect, it, vi } from "vitest";
import {
  call,
  client,
  createAccount,
  createCandidate,
  expectStatus,
  freshAlias,
  inCandidate,
  okBody,
  type TestAccount,
  dbOf,
} from "../support/api";
import { useClock } from "../support/clock";

type Item = { candidate_alias: string; type: string; value?: unknown; idempotency_key?: string };

const batch = (account: TestAccount, events: Item[], headers: Record<string, string> = {}) =>
  call("POST", "/v1/events/batch", { token: account.token, json: { events }, headers });

const candidate = async (account: TestAccount, over: Record<string, unknown> = {}) =>
  (await createCandidate(account, over)).alias;

const events = async (account: TestAccount, alias: string) =>
  okBody(await client(account).get(`/v1/candidates/${alias}`)).events;

/** Fills a candidate to its 1,000-event cap, ten batches of 100. */
async function fill(account: TestAccount, alias: string) {
  for (let b = 0; b < 10; b++) {
    const res = await batch(
      account,
      Array.from({ length: 100 }, (_, i) => ({ candidate_alias: alias, type: "fill", value: b * 100 + i })),
    );
    expectStatus(res, 200);
  }
}

describe("POST /v1/events/batch", () => {
  it("answers each item as POST /v1/events would, in order, one item's failure affecting no other", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const [a, b, full] = [await candidate(account), await candidate(account), await candidate(account)];
    const theirs = await candidate(other);
    const unknown = freshAlias("unknown");
    await fill(account, full);
    const first = await batch(account, [{ candidate_alias: a, type: "purchase", value: 10, idempotency_key: "k1" }]);
    expect(first.body.data[0].status).toBe(201);

    const res = await batch(account, [
      { candidate_alias: a, type: "purchase", value: 50 },
      { candidate_alias: unknown, type: "purchase" },
      { candidate_alias: theirs, type: "purchase", value: 500 },
      { candidate_alias: full, type: "purchase" },
      { candidate_alias: a, type: "purchase", value: 10, idempotency_key: "k1" }, // replays the first result
      { candidate_alias: a, type: "purchase", value: 11, idempotency_key: "k1" }, // same key, another item
      { candidate_alias: b, type: "purchase", value: 150 },
      { candidate_alias: a, type: "purchase", value: 100 },
    ]);
    expectStatus(res, 200);
    const d = res.body.data;
    expect(d.map((r: any) => r.status)).toEqual([201, 404, 404, 409, 201, 409, 201, 201]);
    expect(Object.keys(d[0]).sort()).toEqual(["candidate", "event", "status"]);
    expect(d[0].event).toMatchObject({ type: "purchase", value: 50, matched: false });
    expect(d[1].error).toMatchObject({
      code: "CANDIDATE_NOT_FOUND",
      status: 404,
      type: "invalid_request_error",
      doc_url: "https://api.test/docs/errors/CANDIDATE_NOT_FOUND",
    });
    expect(d[1].error.message).toContain(unknown);
    expect(d[2]).toEqual({
      status: 404,
      error: { ...d[1].error, message: d[1].error.message.replace(unknown, theirs) },
    });
    expect(d[3].error.code).toBe("EVENT_LIMIT_REACHED");
    expect(d[4]).toEqual(first.body.data[0]);
    expect(d[5].error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(d[6].candidate).toMatchObject({ candidate_alias: b, status: "PENDING", scheduled_outcome: "CONFIRMED" });
    expect(d[7].event.matched).toBe(true);
    expect(d[7].candidate.status).toBe("PENDING");

    // Exactly what was answered is what is stored; the other account's candidate is untouched.
    expect((await events(account, a)).map((e: any) => e.value)).toEqual([10, 50, 100]);
    expect(await events(account, b)).toHaveLength(1);
    expect(await events(account, full)).toHaveLength(1000);
    expect(await events(other, theirs)).toEqual([]);
    const untouched = await inCandidate(
      unknown,
      (_i, state) => state.storage.sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'events'`).one().n,
    );
    expect(untouched).toBe(0);
  });

  it("records 100 items on one alias in batch order, each seeing the candidate the one before left", async () => {
    const account = await createAccount();
    const alias = await candidate(account, { fulfillment_condition: { all: [{ event: "a" }, { event: "b" }] } });
    const items = Array.from({ length: 100 }, (_, i) => ({
      candidate_alias: alias,
      type: i === 40 ? "a" : i === 70 ? "b" : "x",
      value: i,
    }));
    const res = await batch(account, items);
    expect(res.body.data.map((r: any) => r.event.value)).toEqual(items.map((i) => i.value));
    expect(res.body.data.map((r: any) => r.candidate.status)).toEqual(
      items.map((_, i) => (i < 70 ? "OPEN" : "PENDING")),
    );
    expect(res.body.data[70].candidate.status_since).toBe(res.body.data[70].event.received_at);
    const stored = await events(account, alias);
    expect(stored.map((e: any) => e.value)).toEqual(items.map((i) => i.value));
    expect(stored.map((e: any) => e.id)).toEqual(res.body.data.map((r: any) => r.event.id));
    expect(stored.filter((e: any) => e.matched).map((e: any) => e.value)).toEqual([40, 70]);
  });

  it("records each item once when the same batch is sent twice with item keys; a changed item alone is refused", async () => {
    const account = await createAccount();
    const [a, b] = [await candidate(account), await candidate(account)];
    const items = [
      { candidate_alias: a, type: "purchase", value: 150, idempotency_key: "a-1" },
      { candidate_alias: b, type: "view", idempotency_key: "b-1" },
      { candidate_alias: a, type: "view", value: { page: 2 }, idempotency_key: "a-2" },
    ];
    const first = await batch(account, items);
    const again = await batch(account, items);
    expectStatus(again, 200);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull(); // no header key: replayed per item
    expect(again.body).toEqual(first.body);
    expect(await events(account, a)).toHaveLength(2);
    expect(await events(account, b)).toHaveLength(1);

    // The same keys with the value of one item changed (and its keys in another order elsewhere).
    const changed = await batch(account, [
      items[0],
      { ...items[1], value: 1 },
      { idempotency_key: "a-2", value: { page: 2 }, type: "view", candidate_alias: a },
    ]);
    expect(changed.body.data.map((r: any) => r.status)).toEqual([201, 409, 201]);
    expect(changed.body.data[1].error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(changed.body.data[2]).toEqual(first.body.data[2]);
    expect(await events(account, b)).toHaveLength(1);
    // A key is scoped to its candidate: the same key on another candidate is another item.
    const elsewhere = await batch(account, [{ ...items[1], candidate_alias: a }]);
    expect(elsewhere.body.data[0].status).toBe(201);
  });

  it("treats a repeated key inside one batch as a resend of the earlier item", async () => {
    const account = await createAccount();
    const alias = await candidate(account);
    const item = { candidate_alias: alias, type: "t", value: 1, idempotency_key: "dup" };
    const res = await batch(account, [item, item, { ...item, value: 2 }]);
    expect(res.body.data.map((r: any) => r.status)).toEqual([201, 201, 409]);
    expect(res.body.data[1]).toEqual(res.body.data[0]);
    expect(await events(account, alias)).toHaveLength(1);
  });

  it("honours Idempotency-Key on the whole batch, and keeps item keys for a day", async () => {
    const account = await createAccount();
    const clock = useClock();
    const alias = await candidate(account, { activity_window: 3 * 86_400 });
    const header = { "Idempotency-Key": `batch-${crypto.randomUUID()}` };
    const items = [
      { candidate_alias: alias, type: "t", idempotency_key: "i-1" },
      { candidate_alias: alias, type: "u" },
    ];
    const first = await batch(account, items, header);
    const again = await batch(account, items, header);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await events(account, alias)).toHaveLength(2);

    clock.advance(24 * 3_600_000 - 1000);
    expect((await batch(account, [items[0]])).body.data[0]).toEqual(first.body.data[0]);
    clock.advance(2000);
    const later = await batch(account, [items[0]]);
    expect(later.body.data[0].event.id).not.toBe(first.body.data[0].event.id);
    expect(await events(account, alias)).toHaveLength(3);
  });

  it("answers a failing object's items as 500 INTERNAL_ERROR, every other item its own result; a retry records each once", async () => {
    const account = await createAccount();
    const [healthy, failing] = [await candidate(account), await candidate(account)];
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    // A transient Durable Object error on one alias: its next call throws, the one after works.
    await inCandidate(failing, (instance: any) => {
      instance.owned = () => {
        delete instance.owned;
        throw new Error("Durable Object reset because its code was updated.");
      };
    });
    const items = [
      { candidate_alias: healthy, type: "a", idempotency_key: "k-a" },
      { candidate_alias: failing, type: "b", idempotency_key: "k-b" },
      { candidate_alias: healthy, type: "c", idempotency_key: "k-c" },
      { candidate_alias: failing, type: "d", idempotency_key: "k-d" },
    ];
    const header = { "Idempotency-Key": `batch-${crypto.randomUUID()}` };
    const first = await batch(account, items, header);
    expectStatus(first, 200);
    expect(first.body.data.map((r: any) => r.status)).toEqual([201, 500, 201, 500]);
    for (const result of [first.body.data[1], first.body.data[3]]) {
      expect(result.error).toMatchObject({
        type: "api_error",
        code: "INTERNAL_ERROR",
        status: 500,
        doc_url: expect.stringContaining("/errors/INTERNAL_ERROR"),
      });
      expect(result.error.message).not.toMatch(/Durable Object|reset/);
    }
    expect((await events(account, failing)).map((e: any) => e.type)).toEqual([]);
    expect((await events(account, healthy)).map((e: any) => e.type)).toEqual(["a", "c"]);
    expect(log.mock.calls.map(String).join()).toContain(`candidate '${failing}' failed its batch items`);
    log.mockRestore();

    // Another body under the same key is still refused, and records nothing.
    const other = await batch(account, [{ candidate_alias: healthy, type: "z" }], header);
    expectStatus(other, 409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // The same batch again, same keys: the failed items are recorded now, the others not twice.
    const retry = await batch(account, items, header);
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
    expect(retry.body.data.map((r: any) => r.status)).toEqual([201, 201, 201, 201]);
    expect(retry.body.data[0]).toEqual(first.body.data[0]);
    expect((await events(account, failing)).map((e: any) => e.type)).toEqual(["b", "d"]);
    expect((await events(account, healthy)).map((e: any) => e.type)).toEqual(["a", "c"]);
  });

  it("refuses a batch with any invalid item whole, with the item's path, recording nothing", async () => {
    const account = await createAccount();
    const alias = await candidate(account);
    const ok = { candidate_alias: alias, type: "t" };
    const cases: [unknown, string][] = [
      [{ events: [] }, "events"],
      [{ events: Array.from({ length: 101 }, () => ok) }, "events"],
      [{ events: [ok, ok, ok, { candidate_alias: alias, type: "" }] }, "events.3.type"],
      [{ events: [ok, { candidate_alias: "short", type: "t" }] }, "events.1.candidate_alias"],
      [{ events: [ok, { ...ok, idempotency_key: "" }] }, "events.1.idempotency_key"],
      [{ events: [ok, { ...ok, value: "v".repeat(9000) }] }, "events.1.value"],
      [{ events: [ok, { ...ok, extra: 1 }] }, "events.1.extra"],
      [{ events: [ok], more: 1 }, "more"],
    ];
    for (const [body, path] of cases) {
      const res = await call("POST", "/v1/events/batch", { token: account.token, json: body });
      expectStatus(res, 400, path);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
    expect(await events(account, alias)).toEqual([]);
  });

  it("takes a body up to 1 MiB: 100 values of 8 KiB", async () => {
    const account = await createAccount();
    const alias = await candidate(account);
    const items = Array.from({ length: 100 }, (_, i) => ({
      candidate_alias: alias,
      type: "big",
      value: `${i}`.padEnd(8000, "x"),
    }));
    const res = await batch(account, items);
    expectStatus(res, 200);
    expect(res.body.data.every((r: any) => r.status === 201)).toBe(true);
    const tooBig = await call("POST", "/v1/events/batch", {
      token: account.token,
      raw: `{"events":[],"pad":"${"p".repeat(1024 * 1024)}"}`,
      headers: { "Content-Type": "application/json" },
    });
    expectStatus(tooBig, 413);
  });

  it("loses nothing under 50 concurrent batches on overlapping aliases, and transitions each candidate once", async () => {
    const account = await createAccount();
    const aliases = await Promise.all(
      Array.from({ length: 8 }, () => candidate(account, { fulfillment_condition: { event: "purchase", gte: 100 } })),
    );
    const sent = Array.from({ length: 50 }, (_, b) =>
      Array.from({ length: 20 }, (_, i) => ({
        candidate_alias: aliases[(b + i) % aliases.length],
        type: "purchase",
        value: (b * 20 + i) % 150,
      })),
    );
    const answers = await Promise.all(sent.map((items) => batch(account, items)));
    for (const res of answers) expect(res.body.data.every((r: any) => r.status === 201)).toBe(true);
    for (const alias of aliases) {
      const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
      const expected = sent
        .flat()
        .filter((i) => i.candidate_alias === alias)
        .map((i) => i.value)
        .sort((x, y) => x - y);
      expect(read.events.map((e: any) => e.value).sort((x: number, y: number) => x - y)).toEqual(expected);
      // One transition: the first event at or over 100 matched, and nothing after it.
      expect(read.events.filter((e: any) => e.matched)).toHaveLength(1);
      const winner = read.events.find((e) => e.matched)!;
      expect(read.events.slice(0, read.events.indexOf(winner)).every((e: any) => e.value < 100)).toBe(true);
      expect(read).toMatchObject({ status: "PENDING", status_since: winner.received_at });
      const index = await dbOf(account)
        .prepare(`SELECT version FROM candidates WHERE alias = ?`)
        .bind(alias)
        .first<{ version: number }>();
      expect(index!.version).toBe(2); // created, then fulfilled: one change of the timeline
    }
  });

  it("counts as one request against the rate limit", async () => {
    const account = await createAccount();
    const alias = await candidate(account);
    const before = await client(account).get("/v1/schemas");
    const res = await batch(
      account,
      Array.from({ length: 100 }, () => ({ candidate_alias: alias, type: "t" })),
    );
    expect(Number(res.headers.get("RateLimit-Remaining"))).toBe(Number(before.headers.get("RateLimit-Remaining")) - 1);
  });
});
