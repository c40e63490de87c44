/**
 * Hostile input, property-based: random and malformed methods, paths, queries, headers and bodies
 * on every endpoint never produce a 5xx, always produce the documented error shape, and never
 * change what is stored.
 */
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  okBody,
  type TestAccount,
  dbOf,
} from "../support/api";
import { ERROR_CODES } from "../../src/errors/codes";

let victim: TestAccount;
let alias: string;
let schemaId: string;
let endpointId: string;
let notificationId: string;

beforeAll(async () => {
  victim = await createAccount();
  const api = client(victim);
  schemaId = okBody(await api.post("/v1/schemas", { contract: contract() })).id;
  alias = freshAlias();
  await api.post("/v1/candidates", { customer_uuid: "cust", candidate_alias: alias });
  await api.post("/v1/events", { candidate_alias: alias, type: "ping", value: { a: 1 } });
  // An endpoint nobody answers at, and a notification of another candidate to resend.
  endpointId = okBody(
    await api.post("/v1/webhook_endpoints", {
      url: "http://127.0.0.1:9/hostile",
      enabled_events: ["candidate.failed"],
    }),
  ).id;
  const notified = freshAlias();
  await api.post("/v1/candidates", {
    customer_uuid: "cust",
    candidate_alias: notified,
    contract: contract({ review_window: 0 }),
  });
  await api.post("/v1/events", { candidate_alias: notified, type: "purchase", value: 500 });
  notificationId = okBody(await api.get("/v1/notifications")).data[0].id;
});

/**
 * Everything requests store for the account, read straight from D1 and the candidate's object.
 * (Delivery attempts are not: the queue consumer writes them in the background, whenever.)
 */
async function storedState() {
  const rows = async (table: string) =>
    (await dbOf(victim).prepare(`SELECT * FROM ${table} WHERE account_id = ? ORDER BY rowid`).bind(victim.id).all())
      .results;
  const object = await inCandidate(alias, (_instance, state) => ({
    candidate: state.storage.sql.exec(`SELECT * FROM candidate`).toArray(),
    events: state.storage.sql.exec(`SELECT * FROM events ORDER BY seq`).toArray(),
  }));
  return {
    schemas: await rows("schemas"),
    candidates: await rows("candidates"),
    endpoints: await rows("webhook_endpoints"),
    notifications: await rows("notifications"),
    object,
  };
}

function expectDocumentedResponse(res: { status: number; headers: Headers; body: any }, method = "GET") {
  expect(res.status).toBeLessThan(500);
  if (res.status < 400 || method === "HEAD") return; // a HEAD response has no body
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  const { error, request_id } = res.body;
  expect(Object.keys(res.body).sort()).toEqual(["error", "request_id"]);
  expect(request_id).toBe(res.headers.get("Request-Id"));
  const info = ERROR_CODES[error.code as keyof typeof ERROR_CODES];
  expect(info, `unknown code ${error.code}`).toBeDefined();
  expect(error).toMatchObject({ status: res.status, type: info.type, doc_url: expect.stringContaining(error.code) });
  expect(info.status).toBe(res.status);
  expect(typeof error.message).toBe("string");
  if (error.details !== undefined) {
    for (const d of error.details) expect(Object.keys(d).sort()).toEqual(["message", "path"]);
  }
  const text = JSON.stringify(res.body);
  expect(text).not.toMatch(/\bat \S*\s*\(?\S+\.(?:ts|js|mjs):\d+:\d+|SQLITE|SELECT |INSERT |D1_ERROR/);
  expect(text).not.toContain(victim.token);
}

// ---- arbitraries -------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  "",
  " ",
  "..",
  "__proto__",
  "constructor",
  "prototype",
  "\u0000",
  "%00",
  "%",
  "%E0%A4%A",
  "null",
  "[]",
  "{}",
  "🦄".repeat(80),
  "x".repeat(300),
  "DROP TABLE candidates; --",
  "' OR 1=1 --",
);
const text = fc.oneof(nasty, fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 300 }));
const pathSegment = fc.oneof(
  text.map(encodeURIComponent),
  nasty, // raw, malformed escapes included
  fc.constantFrom("ALIAS", "SCHEMA", "ENDPOINT", "NOTIFICATION"),
);

const routes = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      ["GET", "/v1/schemas"],
      ["POST", "/v1/schemas"],
      ["GET", "/v1/schemas/:p"],
      ["PATCH", "/v1/schemas/:p"],
      ["DELETE", "/v1/schemas/:p"],
      ["POST", "/v1/candidates"],
      ["GET", "/v1/candidates"],
      ["GET", "/v1/candidates/:p"],
      ["POST", "/v1/candidates/:p/resolve"],
      ["POST", "/v1/events"],
      ["POST", "/v1/events/batch"],
      ["POST", "/v1/webhook_endpoints"],
      ["GET", "/v1/webhook_endpoints"],
      ["GET", "/v1/webhook_endpoints/:p"],
      ["PATCH", "/v1/webhook_endpoints/:p"],
      ["DELETE", "/v1/webhook_endpoints/:p"],
      ["POST", "/v1/webhook_endpoints/:p/rotate_secret"],
      ["POST", "/v1/webhook_endpoints/:p/test"],
      ["GET", "/v1/webhook_endpoints/:p/deliveries"],
      ["GET", "/v1/notifications"],
      ["GET", "/v1/notifications/:p"],
      ["POST", "/v1/notifications/:p/resend"],
      ["GET", "/v1/summary"],
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
      fc.constantFrom("/v1/:p", "/v1/schemas/:p/:p", "/:p", "/v1/candidates/:p/:p"),
    ),
  },
);

/** A value that is usually wrong for the field it lands in. */
const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  text,
  fc.double(),
  fc.constantFrom(-1, 0, 1e308, -0, 2 ** 53 + 1, 0.0001),
);
const validContract = contract();
const nearlyValidContract = fc.record(
  {
    price: fc.oneof(fc.constant(validContract.price), wrongValue),
    activity_window: fc.oneof(fc.constant(validContract.activity_window), wrongValue),
    review_window: fc.oneof(fc.constant(validContract.review_window), wrongValue),
    fulfillment_condition: fc.oneof(
      fc.constant(validContract.fulfillment_condition),
      wrongValue,
      fc.record(
        { event: text, match: wrongValue, field: text, gte: wrongValue, all: wrongValue, any: wrongValue },
        { requiredKeys: [] },
      ),
    ),
    timeout_outcome: fc.oneof(fc.constant("fail"), wrongValue),
    extra: wrongValue,
  },
  { requiredKeys: [] },
);
/** A batch item that is usually valid, aimed at the victim's candidate. */
const nearlyValidItem = fc.record(
  {
    candidate_alias: fc.oneof({ weight: 4, arbitrary: fc.constant("ALIAS") }, text, wrongValue),
    type: fc.oneof({ weight: 4, arbitrary: fc.constant("ping") }, text, wrongValue),
    value: wrongValue,
    idempotency_key: fc.oneof(text, wrongValue),
    extra: wrongValue,
  },
  { requiredKeys: [] },
);
const deeplyNested = fc
  .integer({ min: 50, max: 3000 })
  .map((depth) => `{"value":${"[".repeat(depth)}${"]".repeat(depth)}}`);
const shapedBody = fc
  .record(
    {
      contract: fc.oneof(nearlyValidContract, wrongValue),
      schema_id: fc.oneof(text, fc.constant("SCHEMA"), wrongValue),
      customer_uuid: fc.oneof(text, wrongValue),
      candidate_alias: fc.oneof(text, fc.constant("ALIAS"), wrongValue),
      type: fc.oneof(text, wrongValue),
      value: wrongValue,
      outcome: fc.oneof(fc.constantFrom("CONFIRMED", "FAILED", "confirmed"), wrongValue),
      url: fc.oneof(
        fc.constantFrom("https://example.com/h", "http://127.0.0.1:9/h", "http://example.com", "javascript:alert(1)"),
        text,
        wrongValue,
      ),
      description: fc.oneof(text, wrongValue),
      enabled_events: fc.oneof(fc.constantFrom(["candidate.pending"], [], ["candidate.open"]), wrongValue),
      status: fc.oneof(fc.constantFrom("enabled", "disabled", "paused"), wrongValue),
      webhook_endpoint_id: fc.oneof(fc.constant("ENDPOINT"), text, wrongValue),
      events: fc.oneof(fc.array(nearlyValidItem, { maxLength: 110 }), wrongValue),
      __proto__: wrongValue,
    },
    { requiredKeys: [] },
  )
  .map((b) => JSON.stringify(b));
const body = fc.oneof(
  shapedBody,
  fc.array(nearlyValidItem, { minLength: 1, maxLength: 5 }).map((events) => JSON.stringify({ events })),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: "binary", maxLength: 200 }),
  deeplyNested,
  fc.constantFrom(
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    "x".repeat(70_000),
    `{"value":"${"v".repeat(9000)}"}`,
    "",
    "{",
    "null",
  ),
);
const headerText = fc.oneof(
  { weight: 9, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,300}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("h".repeat(20_000), "cct_" + "A".repeat(10_000), "Bearer " + "b".repeat(8_000)),
  },
);
const headers = fc.record(
  {
    "Content-Type": fc.oneof(
      { weight: 6, arbitrary: fc.constant("application/json") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "application/json; charset=utf-8",
          "text/plain",
          "application/x-www-form-urlencoded",
          "",
        ),
      },
      { weight: 1, arbitrary: headerText },
    ),
    "Idempotency-Key": headerText,
    Accept: headerText,
    "X-Forwarded-For": headerText,
  },
  { requiredKeys: ["Content-Type"] },
);
const query = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      "status",
      "limit",
      "after",
      "customer_uuid",
      "type",
      "candidate_alias",
      "status_since_gte",
      "status_since_lt",
      "activity_ends_gte",
      "activity_ends_lt",
      "group_by",
    ),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(
    text,
    fc.constantFrom("OPEN", "50", "-1", "1e2", "ALIAS", "NOTIFICATION", "candidate.confirmed", "customer_uuid"),
    fc.constantFrom(
      "2026-11-01T00:00:00Z",
      "2026-11-01T00:00:00.000+14:00",
      "2026-02-30T00:00:00Z",
      "1970-01-01T00:00:00Z",
      "9999-12-31T23:59:59Z",
      "2026-11-01",
    ),
  ),
  { maxKeys: 4 },
);

const request = fc.record({
  route: routes,
  segments: fc.array(pathSegment, { minLength: 3, maxLength: 3 }),
  query,
  headers,
  body,
});

// ---- properties --------------------------------------------------------------------------------

describe("hostile input on every endpoint", () => {
  it("never answers 5xx, always in the documented shape, and never changes stored state", async () => {
    let state = await storedState();
    await fc.assert(
      fc.asyncProperty(request, async ({ route: [method, template], segments, query, headers, body }) => {
        let i = 0;
        const ids: Record<string, string> = {
          ALIAS: encodeURIComponent(alias),
          SCHEMA: schemaId,
          ENDPOINT: endpointId,
          NOTIFICATION: notificationId,
        };
        const fill = (s: string) => ids[s] ?? s;
        const path = template.replace(/:p/g, () => fill(segments[i++]));
        const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, fill(v)])).toString();
        const raw = ["GET", "HEAD"].includes(method)
          ? undefined
          : body
              .replaceAll('"ALIAS"', JSON.stringify(alias))
              .replaceAll('"SCHEMA"', JSON.stringify(schemaId))
              .replaceAll('"ENDPOINT"', JSON.stringify(endpointId));
        const res = await call(method, `${path}${search ? `?${search}` : ""}`, { token: victim.token, headers, raw });
        expectDocumentedResponse(res, method);
        const after = await storedState();
        if (res.status >= 400) expect(after).toEqual(state); // a rejected request changed nothing
        state = after; // a rare valid change (a DELETE of the schema, say) becomes the new baseline
      }),
      { numRuns: 400 },
    );
  }, 60_000);

  it("answers any Authorization header without a 5xx, and 401 unless it carries the token", async () => {
    let client = 0; // each from its own address, below the limit on failed authentication
    await fc.assert(
      fc.asyncProperty(headerText, async (authorization) => {
        const headers = { Authorization: authorization, "CF-Connecting-IP": `198.51.100.${++client % 250}-${client}` };
        const res = await call("GET", "/v1/schemas", { headers });
        expectDocumentedResponse(res);
        expectStatus(res, 401);
      }),
      { numRuns: 100 },
    );
  });
});
