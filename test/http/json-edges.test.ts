/**
 * JSON at its edges: numbers JSON.parse cannot hold, keys that name JavaScript internals
 * (`__proto__`, `constructor`, ...), and bodies that differ only in key order. Every value either
 * comes back exactly as sent or is refused; `match` is JSON equality whatever the keys.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { evictDurableObject } from "cloudflare:test";
import {
  call,
  client,
  createAccount,
  expectStatus,
  freshAlias,
  objectOf,
  okBody,
  type TestAccount,
} from "../support/api";

const JSON_HEADERS = { "Content-Type": "application/json" };

/** Posts raw JSON text, as a client that writes `1e999` or `__proto__` keys would. */
const postRaw = (account: TestAccount, path: string, raw: string, headers: Record<string, string> = {}) =>
  call("POST", path, { token: account.token, raw, headers: { ...JSON_HEADERS, ...headers } });

async function candidateWith(account: TestAccount, fulfillmentCondition: string) {
  const alias = freshAlias();
  const raw = `{"customer_uuid":"c","candidate_alias":"${alias}","contract":{"price":1,"activity_window":3600,
    "review_window":60,"timeout_outcome":"fail","fulfillment_condition":${fulfillmentCondition}}}`;
  const res = await postRaw(account, "/v1/candidates", raw);
  expectStatus(res, 201, JSON.stringify(res.body));
  return alias;
}

const expectRefusedAt = (res: { status: number; body: any }, path: string) => {
  expectStatus(res, 400, JSON.stringify(res.body));
  expect(res.body.error.code).toBe("VALIDATION_ERROR");
  expect(res.body.error.details).toContainEqual({ path, message: expect.stringMatching(/finite number/) });
};

describe("numbers JSON.parse cannot hold", () => {
  it("are refused anywhere in a body, at their path, and change nothing", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"e"}`);
    const cases: [string, string, string][] = [
      [
        "/v1/schemas",
        `{"contract":{"price":1e999,"activity_window":1,"review_window":0,"timeout_outcome":"fail","fulfillment_condition":{"event":"e"}}}`,
        "contract.price",
      ],
      [
        "/v1/schemas",
        `{"contract":{"price":1,"activity_window":1,"review_window":0,"timeout_outcome":"fail","fulfillment_condition":{"event":"e","match":{"n":1e999}}}}`,
        "contract.fulfillment_condition.match.n",
      ],
      [
        "/v1/schemas",
        `{"contract":{"price":1,"activity_window":1,"review_window":0,"timeout_outcome":"fail","fulfillment_condition":{"event":"e","gte":-1e999}}}`,
        "contract.fulfillment_condition.gte",
      ],
      ["/v1/events", `{"candidate_alias":"${alias}","type":"e","value":1e999}`, "value"],
      ["/v1/events", `{"candidate_alias":"${alias}","type":"e","value":{"a":[1,{"b":-1E400}]}}`, "value.a.1.b"],
    ];
    for (const [path, raw, at] of cases) expectRefusedAt(await postRaw(account, path, raw), at);
    const api = client(account);
    expect(okBody(await api.get("/v1/schemas")).data).toEqual([]);
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).events).toEqual([]);
  });

  it("keep the largest and smallest finite numbers exactly", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"e","match":{"n":1.7976931348623157e308}}`);
    const res = await postRaw(
      account,
      "/v1/events",
      `{"candidate_alias":"${alias}","type":"e","value":{"n":1.7976931348623157E308,"m":5e-324}}`,
    );
    expectStatus(res, 201);
    expect(res.body.event).toMatchObject({ value: { n: 1.7976931348623157e308, m: 5e-324 }, matched: true });
  });
});

describe("numbers a 64-bit float cannot hold exactly, and duplicate keys", () => {
  it("are refused at their path rather than stored as something else", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"e"}`);
    const cases: [string, string, RegExp][] = [
      [
        `{"candidate_alias":"${alias}","type":"e","value":{"id":9007199254740993}}`,
        "value.id",
        /which would store 9007199254740992: send that, or, where the field takes any JSON .*the exact figure as a string$/,
      ],
      [
        `{"candidate_alias":"${alias}","type":"e","value":[1e-400]}`,
        "value.0",
        /^is too close to 0 .*which would store 0: send 0, or/,
      ],
      [`{"candidate_alias":"${alias}","type":"e","value":0.30000000000000000001}`, "value", /which would store 0.3:/],
      [`{"candidate_alias":"${alias}","type":"e","value":{"a":1,"a":2}}`, "value.a", /duplicate key/],
      [`{"candidate_alias":"${alias}","type":"e","type":"f"}`, "type", /duplicate key/],
      [
        `{"candidate_alias":"${alias}","type":"e","value":{"__proto__":1,"__proto__":2}}`,
        "value.__proto__",
        /duplicate key/,
      ],
    ];
    for (const [raw, path, message] of cases) {
      const res = await postRaw(account, "/v1/events", raw);
      expectStatus(res, 400, raw);
      expect(res.body.error.details).toContainEqual({ path, message: expect.stringMatching(message) });
    }
    const schema = await postRaw(
      account,
      "/v1/schemas",
      `{"contract":{"price":1e999,"price":1,"activity_window":1,"review_window":0,"timeout_outcome":"fail","fulfillment_condition":{"event":"e"}}}`,
    );
    expect(schema.body.error.details.map((d: any) => d.path).sort()).toEqual(["contract.price", "contract.price"]);
    expect(okBody(await client(account).get(`/v1/candidates/${alias}`)).events).toEqual([]);
  });

  it("keep what a float holds, in any notation", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"e"}`);
    const res = await postRaw(
      account,
      "/v1/events",
      `{"candidate_alias":"${alias}","type":"e","value":[1.0,1E2,-0,0.1,9007199254740992,1.5e-10]}`,
    );
    expectStatus(res, 201);
    expect(res.body.event.value).toEqual([1, 100, 0, 0.1, 9007199254740992, 1.5e-10]);
  });
});

describe("keys that name JavaScript internals", () => {
  it("match by JSON equality, `constructor` included", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"car","match":{"car":{"constructor":{"name":"Ferrari"}}}}`);
    const send = (value: string) =>
      postRaw(account, "/v1/events", `{"candidate_alias":"${alias}","type":"car","value":${value}}`);
    expect((await send(`{"car":{"constructor":{"name":"Fiat"}}}`)).body.event.matched).toBe(false);
    const hit = await send(`{"car":{"constructor":{"name":"Ferrari"}},"extra":1}`);
    expect(hit.body.event.matched).toBe(true);
    expect(hit.body.candidate.status).toBe("PENDING");
  });

  it("keep a `__proto__` key in `match` as data: the condition is not weakened", async () => {
    const account = await createAccount();
    const condition = `{"event":"e","match":{"__proto__":{"admin":true},"plan":"pro"}}`;
    const alias = await candidateWith(account, condition);
    const read = await call("GET", `/v1/candidates/${alias}`, { token: account.token });
    const raw = JSON.stringify(read.body.contract.fulfillment_condition);
    expect(raw).toBe(condition);

    const send = (value: string) =>
      postRaw(account, "/v1/events", `{"candidate_alias":"${alias}","type":"e","value":${value}}`);
    expect((await send(`{"plan":"pro"}`)).body.event.matched).toBe(false);
    expect((await send(`{"plan":"pro","__proto__":{"admin":false}}`)).body.event.matched).toBe(false);
    await evictDurableObject(objectOf(alias)); // compiled again from storage: the same condition
    expect((await send(`{"plan":"pro"}`)).body.event.matched).toBe(false);
    const hit = await send(`{"__proto__":{"admin":true},"plan":"pro"}`);
    expect(hit.body.event.matched).toBe(true);
    expect(JSON.stringify(hit.body.event.value)).toBe(`{"__proto__":{"admin":true},"plan":"pro"}`);
  });

  it("round-trip in schemas: stored and listed with every key", async () => {
    const account = await createAccount();
    const raw = `{"contract":{"price":1,"activity_window":1,"review_window":0,"timeout_outcome":"fail",
      "fulfillment_condition":{"event":"e","match":{"__proto__":{"x":1},"toString":"s","prototype":[]}}}}`;
    const created = await postRaw(account, "/v1/schemas", raw);
    expectStatus(created, 201);
    const match = `{"__proto__":{"x":1},"toString":"s","prototype":[]}`;
    expect(JSON.stringify(created.body.contract.fulfillment_condition.match)).toBe(match);
    const listed = await call("GET", "/v1/schemas", { token: account.token });
    expect(JSON.stringify(listed.body.data[0].contract.fulfillment_condition.match)).toBe(match);
  });
});

describe("Idempotency-Key and key order", () => {
  it("replays a body whose keys come in another order: it is the same request", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"e"}`);
    const headers = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    const first = await postRaw(
      account,
      "/v1/events",
      `{"candidate_alias":"${alias}","type":"x","value":{"a":1,"b":[{"c":1,"d":2}]}}`,
      headers,
    );
    expectStatus(first, 201);
    const again = await postRaw(
      account,
      "/v1/events",
      `{"value":{"b":[{"d":2,"c":1}],"a":1.0},"type":"x","candidate_alias":"${alias}"}`,
      headers,
    );
    expectStatus(again, 201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await postRaw(
      account,
      "/v1/events",
      `{"candidate_alias":"${alias}","type":"x","value":{"a":1,"b":[{"c":2,"d":1}]}}`,
      headers,
    );
    expectStatus(other, 409);
    expect(okBody(await client(account).get(`/v1/candidates/${alias}`)).events).toHaveLength(1);
  });
});

// ---- properties --------------------------------------------------------------------------------

/** A JSON document as text, the value it denotes, and whether the service must keep it (or refuse it). */
interface Doc {
  text: string;
  value: unknown;
  keepable: boolean;
}

const edgeKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "a",
  "",
);
/** Number literals at the edges: [text, value, whether a 64-bit float holds it exactly]. */
const edgeNumber = fc.constantFrom<[string, number, boolean]>(
  ["-0", 0, true],
  ["0", 0, true],
  ["1.0", 1, true],
  ["1E2", 100, true],
  ["1e308", 1e308, true],
  ["-1.7976931348623157e308", -1.7976931348623157e308, true],
  ["5e-324", 5e-324, true],
  ["0.1", 0.1, true],
  ["9007199254740992", 2 ** 53, true],
  ["1e999", Infinity, false],
  ["-1e999", -Infinity, false],
  ["1e-400", 0, false], // underflows to 0
  ["9007199254740993", 2 ** 53, false], // beyond 2^53: would become its neighbour
  ["0.10000000000000000001", 0.1, false],
);

const doc: fc.Arbitrary<Doc> = fc.letrec<{ doc: Doc }>((tie) => ({
  doc: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    edgeNumber.map(([text, value, keepable]) => ({ text, value, keepable })),
    fc.oneof(fc.string({ maxLength: 5 }), edgeKey).map((s) => ({ text: JSON.stringify(s), value: s, keepable: true })),
    fc.constantFrom(null, true, false).map((v) => ({ text: JSON.stringify(v), value: v, keepable: true })),
    fc.array(tie("doc"), { maxLength: 3 }).map((items) => ({
      text: `[${items.map((i) => i.text).join(",")}]`,
      value: items.map((i) => i.value),
      keepable: items.every((i) => i.keepable),
    })),
    fc.array(fc.tuple(edgeKey, tie("doc")), { maxLength: 4 }).map((entries) => {
      const value: Record<string, unknown> = {};
      // defineProperty, so `__proto__` is an own key as JSON.parse makes it.
      for (const [k, v] of entries)
        Object.defineProperty(value, k, { value: v.value, enumerable: true, configurable: true, writable: true });
      const keys = entries.map(([k]) => k);
      return {
        text: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v.text}`).join(",")}}`,
        value,
        keepable: entries.every(([, v]) => v.keepable) && new Set(keys).size === keys.length, // no duplicate keys
      };
    }),
  ),
})).doc;

/** JSON equality, written independently of the service: numbers by value (-0 is 0), keys as data. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as any)[k], (b as any)[k]));
}

describe("random JSON with edge keys and numbers", () => {
  it("event values come back equal to what was sent, in the answer and the read, or are refused", async () => {
    const account = await createAccount();
    const alias = await candidateWith(account, `{"event":"never"}`);
    await fc.assert(
      fc.asyncProperty(doc, async (value) => {
        const res = await postRaw(
          account,
          "/v1/events",
          `{"candidate_alias":"${alias}","type":"t","value":${value.text}}`,
        );
        if (!value.keepable) {
          expectStatus(res, 400);
          expect(res.body.error.code).toBe("VALIDATION_ERROR");
          return;
        }
        expectStatus(res, 201, JSON.stringify(res.body));
        expect(
          jsonEqual(res.body.event.value, value.value),
          `${value.text} came back as ${JSON.stringify(res.body.event.value)}`,
        ).toBe(true);
        const read = await call("GET", `/v1/candidates/${alias}`, { token: account.token });
        const stored = read.body.events.find((e: any) => e.id === res.body.event.id);
        expect(jsonEqual(stored.value, value.value)).toBe(true);
      }),
      { numRuns: 120 },
    );
  }, 30_000);

  it("conditions keep every key and value: a schema's match comes back as sent, or is refused", async () => {
    const account = await createAccount();
    await fc.assert(
      fc.asyncProperty(doc, async (value) => {
        const res = await postRaw(
          account,
          "/v1/schemas",
          `{"contract":{"price":1,"activity_window":1,"review_window":0,"timeout_outcome":"fail","fulfillment_condition":{"event":"e","match":{"k":${value.text}}}}}`,
        );
        if (!value.keepable) {
          expectStatus(res, 400);
          return;
        }
        expectStatus(res, 201);
        const read = await call("GET", `/v1/schemas/${res.body.id}`, { token: account.token });
        expect(jsonEqual(read.body.contract.fulfillment_condition.match.k, value.value), value.text).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 30_000);

  it("`match` agrees with JSON equality, before and after the object is evicted", async () => {
    const account = await createAccount();
    await fc.assert(
      // Half the time the event carries the expected value itself (as new objects, from its text).
      fc.asyncProperty(doc, fc.option(doc, { nil: undefined }), fc.boolean(), async (expected, other, evict) => {
        const actual = other ?? expected;
        fc.pre(expected.keepable && actual.keepable);
        const alias = await candidateWith(account, `{"event":"e","match":{"k":${expected.text}}}`);
        if (evict) await evictDurableObject(objectOf(alias));
        const send = (v: Doc) =>
          postRaw(account, "/v1/events", `{"candidate_alias":"${alias}","type":"e","value":{"k":${v.text}}}`);
        const res = await send(actual);
        expectStatus(res, 201);
        const equal = jsonEqual(expected.value, actual.value);
        expect(res.body.event.matched, `${expected.text} vs ${actual.text}`).toBe(equal);
        // The expected value itself always matches.
        if (!equal) expect((await send(expected)).body.event.matched).toBe(true);
      }),
      { numRuns: 80 },
    );
  }, 30_000);
});

describe("a body refused for its JSON", () => {
  it("lists the route's other problems too, each once", async () => {
    const account = await createAccount();
    const res = await postRaw(
      account,
      "/v1/events",
      `{"candidate_alias":"x","type":"\\ud800","value":1e999,"extra":1,"value":2}`,
    );
    expectStatus(res, 400, JSON.stringify(res.body));
    const details: { path: string; message: string }[] = res.body.error.details;
    expect(details.map((d) => d.path).sort()).toEqual(["candidate_alias", "extra", "type", "value", "value"]);
    expect(details.filter((d) => d.path === "value").map((d) => d.message)).toEqual([
      expect.stringMatching(/finite number/),
      expect.stringMatching(/duplicate key/),
    ]);
    expect(res.body.error.message).toMatch(/candidate_alias: .*8/);
  });

  it("never names a key that is not Unicode, and lists its siblings' problems", async () => {
    const account = await createAccount();
    const top = await postRaw(account, "/v1/api_keys", `{"\\ud800":1,"name":"ok"}`);
    expectStatus(top, 400, JSON.stringify(top.body));
    expect(top.body.error.details).toEqual([{ path: "", message: expect.stringMatching(/has a key that/) }]);
    expect(top.body.error.message.isWellFormed()).toBe(true);
    const alias = await candidateWith(account, `{"event":"e"}`);
    const nested = await call("PATCH", `/v1/candidates/${alias}`, {
      token: account.token,
      raw: `{"metadata":{"k":"v","k":"w","\\ud800":"x","bad key!":1}}`,
      headers: JSON_HEADERS,
    });
    expectStatus(nested, 400, JSON.stringify(nested.body));
    const paths = nested.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["metadata.k", "metadata", "metadata.bad key!"]));
  });

  it("says when it lists only the first of its JSON's problems", async () => {
    const account = await createAccount();
    const item = `{"candidate_alias":"abcdefgh","type":"\\ud800"}`;
    const res = await postRaw(account, "/v1/events/batch", `{"events":[${Array(60).fill(item).join(",")}]}`);
    expectStatus(res, 400, JSON.stringify(res.body));
    expect(res.body.error.details).toHaveLength(50);
    expect(res.body.error.message).toMatch(/; at most 50 problems of its JSON are listed$/);
  });

  it("is not walked by the route's schema when its JSON's problems fill the list before a deep nesting", async () => {
    const account = await createAccount();
    const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
    const surrogates = Array(50).fill(`"\\ud800"`).join(",");
    const res = await postRaw(account, "/v1/events", `{"candidate_alias":"x","type":[${surrogates}],"value":${deep}}`);
    expectStatus(res, 400, JSON.stringify(res.body));
    expect(res.body.error.details).toHaveLength(50);
  });

  it("is not walked by the route's schema past a nesting too deep", async () => {
    const account = await createAccount();
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const res = await postRaw(account, "/v1/events", `{"candidate_alias":"x","type":"","value":${deep}}`);
    expectStatus(res, 400, JSON.stringify(res.body));
    expect(res.body.error.details).toEqual([
      { path: expect.stringMatching(/^value(\.0)+$/), message: "nests deeper than 64 levels" },
    ]);
  });
});
