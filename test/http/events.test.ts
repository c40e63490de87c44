import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { evictDurableObject } from "cloudflare:test";
import {
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  objectOf,
  okBody,
} from "../support/api";
import { iso, useClock } from "../support/clock";
import { MAX_EVENTS_PER_CANDIDATE } from "../../src/candidate/batch-plan";

async function candidate(over: Record<string, unknown> = {}) {
  const account = await createAccount();
  const api = client(account);
  const alias = freshAlias();
  const res = await api.post("/v1/candidates", {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract(over),
  });
  expectStatus(res, 201);
  return { api, alias, account };
}

describe("POST /v1/events", () => {
  it("records an event: 201 with the event and the candidate after it", async () => {
    const { api, alias } = await candidate();
    const clock = useClock();
    const res = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 50 });
    expectStatus(res, 201);
    expect(Object.keys(res.body).sort()).toEqual(["candidate", "event"]);
    expect(res.body.event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "purchase",
      value: 50,
      received_at: iso(clock.now()),
      matched: false,
    });
    expect(res.body.candidate).toMatchObject({ candidate_alias: alias, status: "OPEN" });
    expect(res.body.candidate).not.toHaveProperty("events");
  });

  it("matches through field, match and compound conditions", async () => {
    const { api, alias } = await candidate({
      fulfillment_condition: {
        all: [
          { event: "order", field: "order.total", gte: 100 },
          { event: "profile", match: { country: "FR", verified: true } },
        ],
      },
    });
    const send = async (type: string, value: unknown) =>
      okBody(await api.post("/v1/events", { candidate_alias: alias, type, value }));
    expect((await send("order", { order: { total: 99.99 } })).event.matched).toBe(false);
    const order = await send("order", { order: { total: 100 } });
    expect(order.event.matched).toBe(true);
    expect(order.candidate.status).toBe("OPEN");
    expect((await send("profile", { country: "FR", verified: "true" })).event.matched).toBe(false);
    const profile = await send("profile", { country: "FR", verified: true, age: 40 });
    expect(profile.event.matched).toBe(true);
    expect(profile.candidate).toMatchObject({ status: "PENDING", scheduled_outcome: "CONFIRMED" });
  });

  it.each([
    [{ type: "x" }, "candidate_alias"],
    [{ candidate_alias: "short", type: "x" }, "candidate_alias"],
    [{ candidate_alias: "long-enough-alias" }, "type"],
    [{ candidate_alias: "long-enough-alias", type: "" }, "type"],
    [{ candidate_alias: "long-enough-alias", type: 5 }, "type"],
    [{ candidate_alias: "long-enough-alias", type: "x", schema_id: "s" }, "schema_id"],
    [{ candidate_alias: "long-enough-alias", type: "x", value: "v".repeat(8 * 1024) }, "value"],
  ])("rejects %o at %s", async (body, path) => {
    const api = client(await createAccount());
    const res = await api.raw.post("/v1/events", body);
    expectStatus(res, 400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
  });

  it("gives back every type, value and receipt instant exactly, in the answer and in the read", async () => {
    const { api, alias } = await candidate();
    const clock = useClock();
    const start = clock.now();
    const sent: Record<string, unknown>[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
        fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
        fc.integer({ min: 0, max: 3_600_000 }),
        async (type, value, offsetMs) => {
          clock.set(start + offsetMs);
          const event = value === undefined ? { type } : { type, value };
          const res = await api.post("/v1/events", { candidate_alias: alias, ...event });
          // Compared as JSON carries it: -0 is 0 once serialised.
          if (value !== undefined) event.value = JSON.parse(JSON.stringify(value));
          expectStatus(res, 201);
          expect(res.body.event).toEqual({
            id: expect.any(String),
            ...event,
            received_at: iso(start + offsetMs),
            matched: false,
          });
          sent.push(res.body.event);
        },
      ),
      { numRuns: 40 },
    );
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).events).toEqual(sent);
  });

  it("counts the 8 KiB of a value in UTF-8 bytes, accepting exactly 8 KiB", async () => {
    const { api, alias } = await candidate();
    const send = (value: string) => api.post("/v1/events", { candidate_alias: alias, type: "t", value });
    expect((await send("v".repeat(8 * 1024 - 2))).status).toBe(201); // the quotes make 8,192 bytes
    expect((await send("é".repeat(4095))).status).toBe(201); // 2 bytes each: 8,190 + quotes
    const tooBig = await send("é".repeat(4096)); // 4,098 characters, 8,194 bytes
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({
      error: { details: [{ path: "value", message: "must be at most 8192 bytes as JSON; received 8194 bytes" }] },
    });
    expect((await send("😀".repeat(2047) + "ab")).status).toBe(201); // 4 bytes per pair: 8,188 + 2 + quotes
    expect((await send("😀".repeat(2048))).status).toBe(400);
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).events).toHaveLength(3);
  });

  it("answers 404 for an unknown alias and for another account's candidate, recording nothing", async () => {
    const { api, alias } = await candidate();
    const other = client(await createAccount());
    const foreign = await other.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 1000 });
    expectStatus(foreign, 404);
    expect(foreign.body.error).toMatchObject({
      code: "CANDIDATE_NOT_FOUND",
      message: `No candidate with alias '${alias}' exists in this account.`,
    });
    const unknown = await api.post("/v1/events", { candidate_alias: `${alias}-nope`, type: "purchase" });
    expectStatus(unknown, 404);
    const read = await api.get(`/v1/candidates/${alias}`);
    expect(read.body).toMatchObject({ status: "OPEN", events: [] });
  });

  it("records all concurrent events in one order with exactly one transition", async () => {
    const { api, alias } = await candidate();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 + i }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const events = results.map((r) => okBody(r).event);
    expect(events.filter((e) => e.matched)).toHaveLength(1);
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(read.events).toHaveLength(30);
    expect(new Set(read.events.map((e) => e.id)).size).toBe(30);
    expect(read.events.filter((e) => e.matched)).toHaveLength(1);
    const winner = events.find((e) => e.matched)!;
    expect(read.status_since).toBe(winner.received_at);
    expect(read.events.findIndex((e) => e.matched)).toBe(0);
  });

  it("reads the largest candidate there can be: 1,000 events of 8 KiB", async () => {
    const { api, alias } = await candidate();
    const value = JSON.stringify("v".repeat(8 * 1024 - 2));
    await inCandidate(alias, (_instance, state) => {
      for (let i = 0; i < MAX_EVENTS_PER_CANDIDATE; i++) {
        state.storage.sql.exec(
          `INSERT INTO events (id, type, value, received_at, matched) VALUES (?, 'big', ?, 0, 0)`,
          `id-${i}`,
          value,
        );
      }
    });
    const read = await api.get(`/v1/candidates/${alias}`);
    expectStatus(read, 200);
    expect(read.body.events).toHaveLength(MAX_EVENTS_PER_CANDIDATE);
    expect(read.body.events[999].value).toBe(JSON.parse(value));
  });

  it("refuses the 1,001st event with 409 EVENT_LIMIT_REACHED, recording nothing", async () => {
    const { api, alias } = await candidate();
    const stub = objectOf(alias);
    // Fill to one below the limit directly in storage; the last allowed event goes through HTTP.
    await inCandidate(alias, (_instance, state) => {
      for (let i = 0; i < MAX_EVENTS_PER_CANDIDATE - 1; i++) {
        state.storage.sql.exec(
          `INSERT INTO events (id, type, value, received_at, matched) VALUES (?, 'filler', NULL, 0, 0)`,
          `id-${i}`,
        );
      }
    });
    await evictDurableObject(stub);
    expect((await api.post("/v1/events", { candidate_alias: alias, type: "last" })).status).toBe(201);
    const over = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 });
    expectStatus(over, 409);
    expect(over.body.error.code).toBe("EVENT_LIMIT_REACHED");
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(read.events).toHaveLength(MAX_EVENTS_PER_CANDIDATE);
    expect(read.status).toBe("OPEN");
  });
});
