/**
 * Reads through D1's Sessions API (docs/scale.md), seen through the runtime's own D1
 * classes (test/support/d1-observer.ts): every response that read or wrote the account's shard
 * carries the bookmark it reached; a read's session starts at the request's `Bookmark`, anywhere
 * without one; a write's at the primary; a candidate object's index write brings its bookmark back
 * to the Worker's response. (Locally one database answers every session; what these tests show
 * is what each session was asked for and what each response said.)
 */
import { describe, expect, it, vi } from "vitest";
import { call, contract, createAccount, freshAlias, type TestAccount } from "../support/api";
import { firstAnswerLost, interceptD1Batch } from "../support/d1-faults";
import { observeD1 } from "../support/d1-observer";
import { replicaBehind } from "../support/d1-replica";
import { endpoint, waitForReceived } from "../support/webhooks";
import { useClock } from "../support/clock";
import { holderDied, holderRevived } from "../support/key-store";

/** The shard, then D1's bookmark in its documented shape (what miniflare writes too). */
const BOOKMARK = /^SHARD_\d+:[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
/** D1's bookmark in ours: what a session is started with. */
const d1 = (bookmark: string) => bookmark.slice(bookmark.indexOf(":") + 1);

const bookmarkOf = (res: { headers: Headers }) => res.headers.get("Bookmark");
const get = (account: TestAccount, path: string, bookmark?: string) =>
  call("GET", path, { token: account.token, headers: bookmark === undefined ? {} : { Bookmark: bookmark } });
const post = (account: TestAccount, path: string, json: unknown) => call("POST", path, { token: account.token, json });

describe("the Bookmark header", () => {
  it("is on every read of the account's data: lists, summary, feed, export, delivery log", async () => {
    const account = await createAccount();
    const hook = await endpoint(account);
    const alias = freshAlias();
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    await post(account, "/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    await waitForReceived(hook.name, 1);
    for (const path of [
      "/v1/candidates",
      "/v1/summary",
      "/v1/notifications",
      "/v1/candidates/export",
      `/v1/webhook_endpoints/${hook.id}/deliveries`,
      "/v1/schemas",
    ]) {
      const res = await get(account, path);
      expect(res.status, path).toBe(200);
      expect(bookmarkOf(res), path).toMatch(BOOKMARK);
    }
    // The keys are the primary's, read without a session: no bookmark of the account's shard.
    expect(bookmarkOf(await get(account, "/v1/api_keys"))).toBeNull();
  });

  it("on a write is the bookmark of what it wrote, its candidate object's index write included", async () => {
    const account = await createAccount();
    const schema = bookmarkOf(await post(account, "/v1/schemas", { contract: contract() }))!;
    const alias = freshAlias();
    const created = bookmarkOf(await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias }))!;
    const fulfilled = bookmarkOf(
      await post(account, "/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }),
    )!;
    expect(schema).toMatch(BOOKMARK);
    // D1 orders bookmarks as text: each write's is later than the one before.
    expect(created > schema).toBe(true);
    expect(fulfilled > created).toBe(true);
    // An event that changes nothing the index shows writes nothing to D1: no bookmark to give.
    expect(bookmarkOf(await post(account, "/v1/events", { candidate_alias: alias, type: "view" }))).toBeNull();
    const other = freshAlias();
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: other });
    const batch = await post(account, "/v1/events/batch", {
      events: [
        { candidate_alias: other, type: "purchase", value: 150 },
        { candidate_alias: alias, type: "view" },
      ],
    });
    expect(batch.body.data.map((r: any) => r.status)).toEqual([201, 201]);
    expect(bookmarkOf(batch)! > fulfilled).toBe(true);
  });

  it("starts a read's D1 session at the request's bookmark, anywhere without one, and a write's at the primary", async () => {
    const account = await createAccount();
    const written = bookmarkOf(await post(account, "/v1/schemas", { contract: contract() }))!;
    let res!: Awaited<ReturnType<typeof get>>;
    const read = await observeD1(async () => (res = await get(account, "/v1/schemas", written)));
    expect(read.sessions).toEqual([d1(written)]);
    expect(res.body.data).toHaveLength(1);
    expect(bookmarkOf(res)! >= written).toBe(true);
    expect((await observeD1(() => get(account, "/v1/summary"))).sessions).toEqual(["first-unconstrained"]);
    // A write reads what it writes beside on the primary; the request's bookmark is not needed.
    const write = await observeD1(() =>
      call("POST", "/v1/candidates", {
        token: account.token,
        json: { customer_uuid: "c", candidate_alias: freshAlias() },
        headers: { Bookmark: written },
      }),
    );
    expect(write.sessions).toEqual(["first-primary", "first-primary"]); // the Worker's (the schema), the object's (the index)
  });

  it("is refused at its header when it is no bookmark, before anything is read", async () => {
    const account = await createAccount();
    const d1Bookmark = `0000007b-0000b26e-00001538-${"0c3e87bb".repeat(4)}`;
    for (const wrong of [
      "",
      "not a bookmark",
      "0".repeat(257),
      "00000000-0000002a-00000000-zz",
      d1Bookmark,
      `ASSETS:${d1Bookmark}`,
      `__proto__:${d1Bookmark}`,
      `SHARD_1:${d1Bookmark}0`,
      `shard_1:${d1Bookmark}`,
    ]) {
      let res!: Awaited<ReturnType<typeof get>>;
      const use = await observeD1(async () => (res = await get(account, "/v1/candidates", wrong)));
      expect(res.status, wrong).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details).toEqual([
        {
          path: "Bookmark",
          message: expect.stringMatching(/^is not a bookmark: send back the `Bookmark` header of an earlier response/),
        },
      ]);
      expect(use.sessions).toEqual([]);
    }
  });

  it("is refused the same way by every operation that takes it, as its document says", async () => {
    const account = await createAccount();
    const hook = await endpoint(account);
    const schema = (await post(account, "/v1/schemas", { contract: contract() })).body.id;
    const alias = freshAlias();
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, schema_id: schema });
    await post(account, "/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    await waitForReceived(hook.name, 1);
    const notification = (await get(account, "/v1/notifications")).body.data[0].id;
    const ids: Record<string, string> = { schemas: schema, webhook_endpoints: hook.id, notifications: notification };
    const doc = (await call("GET", "/v1/openapi.json")).body;
    const taking = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, operations]) =>
      Object.values(operations)
        .filter((op) =>
          op.parameters?.some((p: { name: string; in: string }) => p.name === "Bookmark" && p.in === "header"),
        )
        .map((op) => ({ path, op })),
    );
    expect(taking.length).toBeGreaterThanOrEqual(10);
    for (const { path, op } of taking) {
      const concrete = path
        .replace("{candidate_alias}", alias)
        .replace(/^\/v1\/(\w+)\/\{id\}/, (_, resource: string) => `/v1/${resource}/${ids[resource]}`);
      const res = await get(account, concrete, "not a bookmark");
      expect(res.status, concrete).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(["Bookmark"]);
      expect(op.responses["400"]?.description, `${op.operationId} documents its 400`).toMatch(/VALIDATION_ERROR/);
    }
  });

  it("names its shard: a bookmark of another shard is ignored, the read starts anywhere", async () => {
    const a = await createAccount();
    const b = await createAccount();
    expect(a.shard).not.toBe(b.shard);
    const ofB = bookmarkOf(await post(b, "/v1/schemas", { contract: contract() }))!;
    expect(ofB.startsWith(`${b.shard}:`)).toBe(true);
    await post(a, "/v1/schemas", { contract: contract() });
    let res!: Awaited<ReturnType<typeof get>>;
    const read = await observeD1(async () => (res = await get(a, "/v1/schemas", ofB)));
    expect(read.sessions).toEqual(["first-unconstrained"]);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(bookmarkOf(res)!.startsWith(`${a.shard}:`)).toBe(true);
  });

  it("is taken in either case of hex, and handed to D1 as D1 writes it", async () => {
    const account = await createAccount();
    const written = bookmarkOf(await post(account, "/v1/schemas", { contract: contract() }))!;
    const shouted = `${account.shard}:${d1(written).toUpperCase()}`;
    let res!: Awaited<ReturnType<typeof get>>;
    const read = await observeD1(async () => (res = await get(account, "/v1/schemas", shouted)));
    expect(res.status).toBe(200);
    expect(read.sessions).toEqual([d1(written)]);
  });

  it("on a replayed write is the first response's: a client whose first answer was lost still reads its write", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    const writes: [string, unknown][] = [
      ["/v1/schemas", { contract: contract() }],
      ["/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() }],
      ["/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }],
      ["/v1/webhook_endpoints", { url: "https://example.com/hook" }],
    ];
    for (const [path, json] of writes) {
      const headers = { "Idempotency-Key": crypto.randomUUID() };
      const first = await call("POST", path, { token: account.token, json, headers });
      const again = await call("POST", path, { token: account.token, json, headers });
      expect(again.headers.get("Idempotent-Replayed"), path).toBe("true");
      expect(bookmarkOf(first), path).toMatch(BOOKMARK);
      expect(bookmarkOf(again), path).toBe(bookmarkOf(first));
    }
  });

  it("on a write answered from D1's record of its key (its first answer lost) is that read's", async () => {
    const account = await createAccount();
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const json = { contract: contract({ price: 8 }) };
    // D1 made the schema but its answer was lost: the request fails (500).
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const first = await interceptD1Batch(/INSERT INTO schemas/, firstAnswerLost, () =>
      call("POST", "/v1/schemas", { token: account.token, json, headers }),
    ).finally(() => errors.mockRestore());
    expect(first.status).toBe(500);
    const retry = await call("POST", "/v1/schemas", { token: account.token, json, headers });
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(bookmarkOf(retry)).toMatch(BOOKMARK);
    const read = await get(account, "/v1/schemas", bookmarkOf(retry)!);
    expect(read.body.data.map((s: any) => s.id)).toEqual([retry.body.id]);
  });

  it("on a keyed change its candidate replays (the first response never recorded) is a point at least as new", async () => {
    const clock = useClock();
    const account = await createAccount();
    const alias = freshAlias();
    const keyed = (path: string, json: unknown, key: string) =>
      call("POST", path, { token: account.token, json, headers: { "Idempotency-Key": key } });
    const changes: [string, string, unknown][] = [
      ["create", "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() }],
      ["a fulfilling event", "/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }],
      ["a batch", "/v1/events/batch", { events: [{ candidate_alias: alias, type: "view" }] }],
      ["resolve", `/v1/candidates/${alias}/resolve`, { outcome: "CONFIRMED" }],
    ];
    let replayed = "";
    for (const [what, path, json] of changes) {
      const key = crypto.randomUUID();
      // The Worker dies after its answer: nothing it would record reaches the key's object.
      await holderDied(account.id, key);
      const errors = vi.spyOn(console, "error").mockImplementation(() => {});
      const first = await keyed(path, json, key).finally(() => errors.mockRestore());
      await holderRevived(account.id, key);
      expect(first.status, what).toBeLessThan(300);
      const written = bookmarkOf(first);
      if (what !== "a batch") expect(written, what).toMatch(BOOKMARK);

      // Within the first's hold the candidate answers from its record (a batch, whose response the
      // key's object keeps, is IN_USE); once the hold lapses, the retry takes the key over.
      const held = await keyed(path, json, key);
      clock.advance(31_000);
      const takenOver = await keyed(path, json, key);
      if (what === "a batch") expect(held.status).toBe(409);
      const answers = what === "a batch" ? { "taken over": takenOver } : { held, "taken over": takenOver };
      for (const [how, res] of Object.entries(answers)) {
        const label = `${what}, ${how}`;
        // A batch's shares replay inside a new response, which is not itself a replay.
        expect(res.headers.get("Idempotent-Replayed"), label).toBe(what === "a batch" ? null : "true");
        expect(res.body, label).toEqual(first.body);
        expect(bookmarkOf(res), label).toMatch(BOOKMARK);
        expect(bookmarkOf(res)! >= (written ?? ""), label).toBe(true);
      }
      replayed = bookmarkOf(takenOver)!;
    }
    // Read from the last replay's point (the resolve's), the list shows what the resolve wrote.
    const list = await get(account, "/v1/candidates", replayed);
    expect(list.body.data.map((c: any) => [c.candidate_alias, c.status])).toEqual([[alias, "CONFIRMED"]]);
  });

  it("on a batch whose items replay from their own keys is a point at least as new as their writes", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const batch = { events: [{ candidate_alias: alias, type: "purchase", value: 150, idempotency_key: "fulfil" }] };
    const first = await post(account, "/v1/events/batch", batch);
    expect(first.body.data[0].candidate.status).toBe("PENDING");
    expect(bookmarkOf(first)).toMatch(BOOKMARK);
    const again = await post(account, "/v1/events/batch", batch); // writes nothing: the item replays
    expect(again.body).toEqual(first.body);
    expect(bookmarkOf(again)).toMatch(BOOKMARK);
    expect(bookmarkOf(again)! >= bookmarkOf(first)!).toBe(true);
  });

  it("on a replay is the one its candidate object kept: no D1 call", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    const created = bookmarkOf(
      await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() }),
    )!;
    // A keyed event that writes no list entry: its response, with no bookmark, is not copied into
    // the key's object, so its replay is the candidate's.
    const view = { candidate_alias: alias, type: "view" };
    const keyed = () =>
      call("POST", "/v1/events", { token: account.token, json: view, headers: { "Idempotency-Key": "view-once" } });
    const first = await keyed();
    expect(bookmarkOf(first)).toBeNull();
    const batch = { events: [{ candidate_alias: alias, type: "purchase", value: 150, idempotency_key: "fulfil" }] };
    const firstOfBatch = await post(account, "/v1/events/batch", batch);
    let again: Awaited<ReturnType<typeof post>> | undefined;
    let batchAgain: Awaited<ReturnType<typeof post>> | undefined;
    const use = await observeD1(async () => {
      again = await keyed(); // within the first's hold: the candidate answers
      batchAgain = await post(account, "/v1/events/batch", batch);
    });
    expect(use.roundTrips).toBe(0);
    expect(again!.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again!.body).toEqual(first.body);
    expect(batchAgain!.body).toEqual(firstOfBatch.body);
    for (const [res, atLeast] of [
      [again!, created],
      [batchAgain!, bookmarkOf(firstOfBatch)!],
    ] as const) {
      expect(bookmarkOf(res)).toMatch(BOOKMARK);
      expect(bookmarkOf(res)! >= atLeast).toBe(true);
    }
  });

  it("on a replay is left out while the list entry the change owes cannot be written", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const fulfil = { candidate_alias: alias, type: "purchase", value: 150 };
    const keyed = () =>
      call("POST", "/v1/events", { token: account.token, json: fulfil, headers: { "Idempotency-Key": "fulfil-once" } });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const [first, again] = await interceptD1Batch(
      /INSERT INTO candidates/,
      () => Promise.reject(new Error("D1 is down")),
      async () => [await keyed(), await keyed()],
    ).finally(() => errors.mockRestore());
    expect(first.status).toBe(201);
    expect(first.body.candidate.status).toBe("PENDING");
    // The candidate's last point (its creation's) would not show the change: none is answered.
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(bookmarkOf(again)).toBeNull();
    // With D1 back, the replay writes what was owed and answers that write's point.
    const later = await keyed();
    expect(bookmarkOf(later)).toMatch(BOOKMARK);
    const list = await get(account, "/v1/candidates", bookmarkOf(later)!);
    expect(list.body.data.map((c: any) => c.status)).toEqual(["PENDING"]);
  });
});

describe("a read that misses on a replica a moment behind", () => {
  it("asks the primary before it answers 404 or refuses a cursor, and answers the primary's bookmark", async () => {
    const account = await createAccount();
    const hook = await endpoint(account);
    const schema = (await post(account, "/v1/schemas", { contract: contract() })).body.id as string;
    const alias = freshAlias();
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    await post(account, "/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    const [delivery] = await waitForReceived(hook.name, 1);
    // An id learned from a webhook, where no bookmark comes with it; cursors from earlier pages.
    const notification = JSON.parse(delivery.body).id as string;
    const candidateId = (await get(account, "/v1/candidates")).body.data[0].id as string;
    const attempt = (await get(account, `/v1/webhook_endpoints/${hook.id}/deliveries`)).body.data[0].id as string;

    const reads = [
      `/v1/notifications/${notification}`,
      `/v1/notifications?after=${notification}`,
      `/v1/schemas/${schema}`,
      `/v1/schemas?after=${schema}`,
      `/v1/candidates?after=${candidateId}`,
      `/v1/webhook_endpoints/${hook.id}`,
    ];
    const lagging = /FROM (notifications|schemas|candidates|webhook_endpoints)\b/;
    const expectFound = async (path: string) => {
      const res = await get(account, path);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(bookmarkOf(res), path).toMatch(BOOKMARK);
    };
    // The delivery log's cursor alone behind: its endpoint is found where the read began.
    await replicaBehind(/FROM webhook_deliveries\b/, () =>
      expectFound(`/v1/webhook_endpoints/${hook.id}/deliveries?after=${attempt}`),
    );
    await replicaBehind(lagging, async () => {
      for (const path of reads) await expectFound(path);
      // What the primary has not either is still a miss.
      const missing = `/v1/notifications/${notification.replace(/.$/, (d) => (d === "0" ? "1" : "0"))}`;
      expect((await get(account, missing)).status).toBe(404);
      expect((await get(account, `/v1/schemas/${crypto.randomUUID()}`)).status).toBe(404);
      expect((await get(account, `/v1/candidates?after=${crypto.randomUUID()}`)).status).toBe(400);
    });
  });
});
