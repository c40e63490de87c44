/**
 * Candidate metadata (docs/lifecycle.md): set at creation, merged by PATCH,
 * shown in every candidate view and notification, and filtered on by the list.
 */
import { describe, expect, it } from "vitest";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  okBody,
  type Contract,
  type Schemas,
  type TestAccount,
} from "../support/api";

type Metadata = Schemas["CreateCandidateBody"]["metadata"];

async function create(account: TestAccount, metadata?: Metadata, over: Partial<Contract> = {}) {
  const alias = freshAlias("meta");
  const res = await client(account).post("/v1/candidates", {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract(over),
    ...(metadata === undefined ? {} : { metadata }),
  });
  return { alias, res };
}

const list = async (account: TestAccount, query: string) => client(account).get(`/v1/candidates?${query}`);
const aliases = (res: Awaited<ReturnType<typeof list>>) => okBody(res).data.map((c) => c.candidate_alias);

describe("candidate metadata", () => {
  it("is set at creation and shown in every view: create, read, list, event answers and notifications", async () => {
    const account = await createAccount();
    const { alias, res } = await create(
      account,
      JSON.parse('{"order_id":"ord_1","note":"","__proto__":"plain data"}'),
      { review_window: 0 },
    );
    expectStatus(res, 201);
    // "" at creation is a key not set; __proto__ is a key like any other.
    expect(res.body.metadata).toEqual(JSON.parse('{"order_id":"ord_1","__proto__":"plain data"}'));
    const api = client(account);
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).metadata).toEqual(res.body.metadata);
    expect(okBody(await api.get("/v1/candidates")).data.find((c) => c.candidate_alias === alias)!.metadata).toEqual(
      res.body.metadata,
    );
    const hit = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }));
    expect(hit.candidate.metadata).toEqual(res.body.metadata);
    const [notification] = okBody(await api.get(`/v1/notifications?candidate_alias=${alias}`)).data;
    expect(notification.data.candidate.metadata).toEqual(res.body.metadata);
    // Without metadata: {}.
    expect(okBody((await create(account)).res).metadata).toEqual({});
  });

  it('is merged by PATCH: keys added, changed, and removed by ""; the contract never changes', async () => {
    const account = await createAccount();
    const { alias, res } = await create(account, { a: "1", b: "2" });
    const api = client(account);
    const patched = await api.patch(`/v1/candidates/${alias}`, { metadata: { b: "two", c: "3", a: "" } });
    expectStatus(patched, 200);
    expect(patched.body).toEqual({ ...res.body, metadata: { b: "two", c: "3" } });
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).metadata).toEqual({ b: "two", c: "3" });
    // The list reads its own write, on the new value and not the old one.
    expect(aliases(await list(account, "metadata[b]=two"))).toEqual([alias]);
    expect(aliases(await list(account, "metadata[b]=2"))).toEqual([]);
    expect(aliases(await list(account, "metadata[a]=1"))).toEqual([]);
    // A change that changes nothing answers the candidate as it is.
    expect(okBody(await api.patch(`/v1/candidates/${alias}`, { metadata: { zzz: "" } })).metadata).toEqual({
      b: "two",
      c: "3",
    });
    expect((await api.patch(`/v1/candidates/${alias}`, { metadata: {} })).status).toBe(200);
  });

  it("refuses bad metadata at its path, changing nothing", async () => {
    const account = await createAccount();
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"]));
    const refused: [unknown, string][] = [
      [{ n: 1 }, "metadata.n"],
      [{ n: null }, "metadata.n"],
      [{ n: { deep: "x" } }, "metadata.n"],
      [{ ["k".repeat(41)]: "v" }, `metadata.${"k".repeat(41)}`],
      [{ "": "v" }, "metadata."],
      [{ "a[b]": "v" }, "metadata.a[b]"],
      [{ long: "v".repeat(501) }, "metadata.long"],
      [{ ...fifty, one_more: "v" }, "metadata"],
      ["not an object", "metadata"],
      [["v"], "metadata"],
    ];
    for (const [metadata, path] of refused) {
      const alias = freshAlias("meta");
      const res = await client(account).raw.post("/v1/candidates", {
        customer_uuid: "c",
        candidate_alias: alias,
        contract: contract(),
        metadata,
      });
      expectStatus(res, 400, JSON.stringify(metadata).slice(0, 60));
      expect(
        res.body.error.details.map((d: any) => d.path),
        JSON.stringify(metadata).slice(0, 60),
      ).toContain(path);
      expect((await client(account).get(`/v1/candidates/${alias}`)).status).toBe(404);
    }
    const { alias } = await create(account, fifty);
    const api = client(account);
    for (const [metadata, path] of refused) {
      const res = await api.raw.patch(`/v1/candidates/${alias}`, { metadata });
      expectStatus(res, 400);
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
    // Merged past 50 keys: refused whole.
    const over = await api.patch(`/v1/candidates/${alias}`, { metadata: { k0: "changed", extra: "v" } });
    expectStatus(over, 400);
    expect(over.body.error.details).toEqual([{ path: "metadata", message: expect.stringContaining("51 keys") }]);
    // Replacing one key while removing another keeps 50: accepted.
    expect((await api.patch(`/v1/candidates/${alias}`, { metadata: { k0: "", extra: "v" } })).status).toBe(200);
    for (const body of [{}, { metadata: { a: "b" }, contract: contract() }, { customer_uuid: "other" }]) {
      const res = await api.raw.patch(`/v1/candidates/${alias}`, body);
      expectStatus(res, 400, JSON.stringify(body));
    }
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(Object.keys(read.metadata)).toHaveLength(50);
    expect(read.metadata.extra).toBe("v");
  });

  it('counts the keys given a value against 50: keys set to "" (removed, or not set) count apart', async () => {
    const account = await createAccount();
    const keys = (prefix: string, n: number, value: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, value]));
    // At creation "" is a key not set: 50 with a value and one empty are 50 keys.
    const { alias, res } = await create(account, { ...keys("a", 50, "v"), x: "" });
    expect(Object.keys(okBody(res).metadata)).toHaveLength(50);
    // Swapping 30 keys in one change: 30 removed, 30 set, 50 left.
    const api = client(account);
    const swapped = await api.patch(`/v1/candidates/${alias}`, {
      metadata: { ...keys("a", 30, ""), ...keys("b", 30, "w") },
    });
    const after = okBody(swapped).metadata;
    expect(Object.keys(after)).toHaveLength(50);
    expect(after.a0).toBeUndefined();
    expect(after.b29).toBe("w");
    expect(after.a49).toBe("v");
    // Each count has its limit, and a body over either changes nothing.
    for (const [metadata, message] of [
      [keys("c", 51, "v"), "must have at most 50 keys with a value; received 51"],
      [keys("c", 51, ""), 'must have at most 50 keys set to ""; received 51'],
    ] as const) {
      const refused = await api.raw.patch(`/v1/candidates/${alias}`, { metadata });
      expectStatus(refused, 400);
      expect(refused.body.error.details).toEqual([{ path: "metadata", message }]);
    }
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).metadata).toEqual(after);
  });

  it("counts lengths in characters, as the document's maxLength does: an emoji is one", async () => {
    const account = await createAccount();
    const key = "🔑".repeat(40);
    const value = "😀".repeat(500);
    const { alias, res } = await create(account, { [key]: value });
    expect(okBody(res).metadata).toEqual({ [key]: value });
    const patched = await client(account).patch(`/v1/candidates/${alias}`, { metadata: { note: "é".repeat(500) } });
    expect(okBody(patched).metadata).toEqual({ [key]: value, note: "é".repeat(500) });
    const found = await list(account, `metadata[${encodeURIComponent(key)}]=${encodeURIComponent(value)}`);
    expect(okBody(found).data.map((c) => c.candidate_alias)).toEqual([alias]);

    const over = await client(account).patch(`/v1/candidates/${alias}`, { metadata: { long: "😀".repeat(501) } });
    expectStatus(over, 400);
    expect(over.body.error.details).toEqual([
      { path: "metadata.long", message: expect.stringContaining("received a string of 501 characters") },
    ]);
    const longKey = await client(account).patch(`/v1/candidates/${alias}`, { metadata: { ["🔑".repeat(41)]: "v" } });
    expectStatus(longKey, 400);
    expect(longKey.body.error.details?.[0].message).toContain("is a key of 41 characters");
    const notAnObject = await client(account).patch(`/v1/candidates/${alias}`, { metadata: "😀" } as never);
    expectStatus(notAnObject, 400);
    expect(notAnObject.body.error.details?.[0].message).toMatch(/received a string of 1 character$/);
  });

  it("is another account's own: PATCH of its candidate is 404 and changes nothing", async () => {
    const owner = await createAccount();
    const { alias } = await create(owner, { a: "1" });
    const intruder = client(await createAccount());
    const res = await intruder.patch(`/v1/candidates/${alias}`, { metadata: { a: "2" } });
    expectStatus(res, 404);
    expect(res.body.error.code).toBe("CANDIDATE_NOT_FOUND");
    expect(okBody(await client(owner).get(`/v1/candidates/${alias}`)).metadata).toEqual({ a: "1" });
    expect(aliases(await list(await createAccount(), "metadata[a]=1"))).toEqual([]);
  });

  it("filters the list: every pair must hold, newest first, paged, with the other filters", async () => {
    const account = await createAccount();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { alias } = await create(account, {
        batch: "b1",
        parity: i % 2 === 0 ? "even" : "odd",
        ...(i === 3 ? { vip: "yes" } : {}),
      });
      made.push(alias);
    }
    await create(account, { batch: "b2", parity: "even" });
    const newestFirst = [...made].reverse();
    expect(aliases(await list(account, "metadata[batch]=b1"))).toEqual(newestFirst);
    expect(aliases(await list(account, "metadata[batch]=b1&metadata[parity]=even"))).toEqual(
      newestFirst.filter((_, i) => i % 2 === 0),
    );
    expect(aliases(await list(account, "metadata[parity]=odd&metadata[vip]=yes"))).toEqual([made[3]]);
    expect(aliases(await list(account, `metadata[batch]=b1&customer_uuid=c&status=OPEN`))).toEqual(newestFirst);
    expect(aliases(await list(account, "metadata[batch]=b1&status=PENDING"))).toEqual([]);
    // Paged: every candidate once, in order.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      // Declared a string: the query depends on `cursor`, which depends on the answer.
      const query: string = `metadata[batch]=b1&limit=3${cursor ? `&after=${cursor}` : ""}`;
      const page = okBody(await list(account, query));
      seen.push(...page.data.map((c) => c.candidate_alias));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(newestFirst);
    // Keys and values are matched exactly, encoded as a query needs them.
    const { alias } = await create(account, { "space key": "a&b=c" });
    expect(
      aliases(await list(account, `metadata[${encodeURIComponent("space key")}]=${encodeURIComponent("a&b=c")}`)),
    ).toEqual([alias]);
  });

  it("refuses bad filters with the parameter's path", async () => {
    const account = await createAccount();
    const refused: [string, string][] = [
      ["metadata[]=x", "metadata[]"],
      [`metadata[${"k".repeat(41)}]=x`, `metadata[${"k".repeat(41)}]`],
      ["metadata[a]=", "metadata[a]"],
      ["metadata[a]=1&metadata[a]=2", "metadata[a]"],
      ["metadata[a.b]=", "metadata[a.b]"],
      [Array.from({ length: 11 }, (_, i) => `metadata[k${i}]=v`).join("&"), "metadata"],
      ["metadata=x", "metadata"],
      ["metadatum[a]=x", "metadatum[a]"],
      ["__proto__=x", "__proto__"],
      ["metadata[a]=1&metadata=zzz", "metadata"],
    ];
    for (const [query, path] of refused) {
      const res = await list(account, query);
      expectStatus(res, 400, query);
      expect(
        res.body.error.details?.map((d) => d.path),
        query,
      ).toContain(path);
    }
  });
});

describe("status_since ranges", () => {
  it("refuses a range whose start is after its end, at status_since_lt", async () => {
    const account = await createAccount();
    for (const path of ["/v1/candidates", "/v1/summary", "/v1/candidates/export"]) {
      const res = await call(
        "GET",
        `${path}?status_since_gte=2026-12-01T00:00:00Z&status_since_lt=2026-11-01T00:00:00Z`,
        { token: account.token },
      );
      expectStatus(res, 400, path);
      expect(res.body.error.details, path).toEqual([
        {
          path: "status_since_lt",
          message:
            "must not be earlier than status_since_gte; received status_since_gte 2026-12-01T00:00:00.000Z " +
            "and status_since_lt 2026-11-01T00:00:00.000Z",
        },
      ]);
    }
    // An empty range written as one instant is no mistake: nothing is in it.
    const same = await list(account, "status_since_gte=2026-11-01T00:00:00Z&status_since_lt=2026-11-01T00:00:00Z");
    expectStatus(same, 200);
  });
});
