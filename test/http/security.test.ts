/**
 * Security: another account's resources are indistinguishable from missing ones on every endpoint,
 * and tokens, stack traces and SQL never leak into responses or logs.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { uuidv7 } from "uuidv7";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  okBody,
  type ApiResponse,
  type TestAccount,
  dbOf,
} from "../support/api";

async function ownerWithData() {
  const owner = await createAccount();
  const api = client(owner);
  const schema = okBody(await api.post("/v1/schemas", { contract: contract({ activity_window: 1 }) }));
  const alias = freshAlias("owned");
  const created = okBody(
    await api.post("/v1/candidates", { customer_uuid: "owner-customer", candidate_alias: alias, schema_id: schema.id }),
  );
  // An endpoint that refuses deliveries (so its log has attempts), then a transition to notify.
  const endpoint = okBody(
    await api.post("/v1/webhook_endpoints", {
      url: "http://127.0.0.1:9/owner-hooks",
      enabled_events: ["candidate.failed"],
    }),
  );
  await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 }); // now PENDING
  const notification = okBody(await api.get("/v1/notifications")).data[0];
  return {
    owner,
    schemaId: schema.id as string,
    alias,
    cursor: created.id as string,
    endpointId: endpoint.id as string,
    notificationId: notification.id as string,
  };
}

/** What the owner has, as the owner sees it. */
async function snapshot(owner: TestAccount, alias: string, endpointId: string) {
  const api = client(owner);
  return {
    schemas: (await api.get("/v1/schemas")).body,
    candidates: (await api.get("/v1/candidates")).body,
    candidate: (await api.get(`/v1/candidates/${alias}`)).body,
    endpoints: (await api.get("/v1/webhook_endpoints")).body,
    deliveries: (await api.get(`/v1/webhook_endpoints/${endpointId}/deliveries`)).body,
    notifications: (await api.get("/v1/notifications")).body,
  };
}

/** A response with the resource's id replaced, and the request id dropped, for comparison. */
function normalise(res: ApiResponse, id: string, placeholder = "ID") {
  const { request_id: _requestId, ...body } = res.body;
  return { status: res.status, body: id ? JSON.parse(JSON.stringify(body).replaceAll(id, placeholder)) : body };
}

describe("another account's resources", () => {
  it("answer exactly as missing ones do, on every endpoint, and stay unchanged", async () => {
    const { owner, schemaId, alias, cursor, endpointId, notificationId } = await ownerWithData();
    const before = await snapshot(owner, alias, endpointId);
    const intruder = await createAccount();
    const intruderEndpoint = okBody(
      await client(intruder).post("/v1/webhook_endpoints", { url: "https://example.com/intruder" }),
    ).id;
    const intruderAlias = freshAlias("intruder");
    await client(intruder).post("/v1/candidates", {
      customer_uuid: "i",
      candidate_alias: intruderAlias,
      contract: contract({ review_window: 0 }),
    });
    await client(intruder).post("/v1/events", { candidate_alias: intruderAlias, type: "purchase", value: 500 });
    const intruderNotification = okBody(await client(intruder).get("/v1/notifications")).data[0].id;
    const missingSchema = uuidv7();
    const missingAlias = freshAlias("missing");
    const missingCursor = uuidv7();
    const missingEndpoint = uuidv7();
    const missingNotification = `ntf_${uuidv7().replaceAll("-", "")}_pending`;

    type Ids = { s: string; a: string; c: string; e: string; n: string };
    const owned: Ids = { s: schemaId, a: alias, c: cursor, e: endpointId, n: notificationId };
    const missing: Ids = {
      s: missingSchema,
      a: missingAlias,
      c: missingCursor,
      e: missingEndpoint,
      n: missingNotification,
    };
    const cases: [string, (ids: Ids) => [string, string, unknown?]][] = [
      ["read a schema", ({ s }) => ["GET", `/v1/schemas/${s}`]],
      ["update a schema", ({ s }) => ["PATCH", `/v1/schemas/${s}`, { contract: contract({ price: 0 }) }]],
      ["rename a schema", ({ s }) => ["PATCH", `/v1/schemas/${s}`, { name: "stolen" }]],
      ["page schemas after a schema", ({ s }) => ["GET", `/v1/schemas?after=${s}`]],
      ["delete a schema", ({ s }) => ["DELETE", `/v1/schemas/${s}`]],
      [
        "create a candidate from a schema",
        ({ s }) => ["POST", "/v1/candidates", { customer_uuid: "x", candidate_alias: `new-${s}`, schema_id: s }],
      ],
      ["read a candidate", ({ a }) => ["GET", `/v1/candidates/${a}`]],
      ["send an event", ({ a }) => ["POST", "/v1/events", { candidate_alias: a, type: "purchase", value: 1 }]],
      [
        "send a batch",
        ({ a }) => ["POST", "/v1/events/batch", { events: [{ candidate_alias: a, type: "purchase", value: 1 }] }],
      ],
      ["resolve a candidate", ({ a }) => ["POST", `/v1/candidates/${a}/resolve`, { outcome: "FAILED" }]],
      ["page after a cursor", ({ c }) => ["GET", `/v1/candidates?after=${c}`]],
      ["read an endpoint", ({ e }) => ["GET", `/v1/webhook_endpoints/${e}`]],
      ["update an endpoint", ({ e }) => ["PATCH", `/v1/webhook_endpoints/${e}`, { url: "https://example.com/stolen" }]],
      ["delete an endpoint", ({ e }) => ["DELETE", `/v1/webhook_endpoints/${e}`]],
      ["rotate an endpoint's secret", ({ e }) => ["POST", `/v1/webhook_endpoints/${e}/rotate_secret`, {}]],
      ["read an endpoint's deliveries", ({ e }) => ["GET", `/v1/webhook_endpoints/${e}/deliveries`]],
      [
        "filter an endpoint's deliveries",
        ({ e, n }) => ["GET", `/v1/webhook_endpoints/${e}/deliveries?notification_id=${n}&status=failed`],
      ],
      ["send a test event to an endpoint", ({ e }) => ["POST", `/v1/webhook_endpoints/${e}/test`, {}]],
      ["read a notification", ({ n }) => ["GET", `/v1/notifications/${n}`]],
      ["page the feed after a notification", ({ n }) => ["GET", `/v1/notifications?after=${n}`]],
      [
        "resend a notification to one's own endpoint",
        ({ n }) => ["POST", `/v1/notifications/${n}/resend`, { webhook_endpoint_id: intruderEndpoint }],
      ],
      [
        "resend to another's endpoint",
        ({ e }) => ["POST", `/v1/notifications/${intruderNotification}/resend`, { webhook_endpoint_id: e }],
      ],
    ];
    for (const [name, build] of cases) {
      const [method, path, json] = build(owned);
      const foreign = await call(method, path, { token: intruder.token, json });
      const [m2, p2, j2] = build(missing);
      const absent = await call(m2, p2, { token: intruder.token, json: j2 });
      // A batch answers 200 with a result per item: the item is the one refused.
      expect(path.endsWith("/batch") ? foreign.body.data[0].status : foreign.status, name).toBeGreaterThanOrEqual(400);
      const real = Object.values(owned).find((id) => JSON.stringify(foreign.body).includes(id)) ?? "";
      const fake = Object.values(missing).find((id) => JSON.stringify(absent.body).includes(id)) ?? "";
      expect(normalise(foreign, real), name).toEqual(normalise(absent, fake));
    }

    // Lists filtered by the owner's customer show the intruder nothing, as for any unknown customer.
    const byCustomer = await call("GET", "/v1/candidates?customer_uuid=owner-customer", { token: intruder.token });
    expect(byCustomer.body).toEqual({ data: [], next_cursor: null });
    expect((await call("GET", "/v1/schemas", { token: intruder.token })).body).toEqual({ data: [], next_cursor: null });
    expect((await call("GET", `/v1/notifications?candidate_alias=${alias}`, { token: intruder.token })).body).toEqual({
      data: [],
      next_cursor: null,
    });
    expect(
      (await call("GET", "/v1/webhook_endpoints", { token: intruder.token })).body.data.map((e: any) => e.id),
    ).toEqual([intruderEndpoint]);
    expect((await call("GET", "/v1/notifications", { token: intruder.token })).body.data.map((n: any) => n.id)).toEqual(
      [intruderNotification],
    );

    // The one documented exception: aliases are global, so creating the same alias conflicts.
    const taken = await call("POST", "/v1/candidates", {
      token: intruder.token,
      json: { customer_uuid: "x", candidate_alias: alias, contract: contract() },
    });
    expectStatus(taken, 409);
    expect(taken.body.error.code).toBe("CANDIDATE_ALIAS_TAKEN");
    expect(JSON.stringify(taken.body)).not.toContain("owner-customer");

    expect(await snapshot(owner, alias, endpointId)).toEqual(before);
  });

  it("never replays another account's response for the same Idempotency-Key", async () => {
    const { owner } = await ownerWithData();
    const intruder = await createAccount();
    const key = "shared-key-123";
    const body = { contract: contract() };
    const first = await call("POST", "/v1/schemas", {
      token: owner.token,
      json: body,
      headers: { "Idempotency-Key": key },
    });
    const second = await call("POST", "/v1/schemas", {
      token: intruder.token,
      json: body,
      headers: { "Idempotency-Key": key },
    });
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    expect(second.body.user_id).toBe(intruder.id);
    expect(second.body.id).not.toBe(first.body.id);
  });
});

describe("secrets and internals", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keeps tokens out of logs and error bodies, and stack traces and SQL out of responses", async () => {
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(" "));
      });
    }
    const account = await createAccount();
    const revoked = await createAccount();
    await env.DB.prepare(`UPDATE api_tokens SET revoked_at = 1 WHERE id = ?`).bind(revoked.tokenId).run();
    const bogus = `cct_${"A".repeat(43)}`;
    const responses: ApiResponse[] = [];
    responses.push(await call("GET", "/v1/schemas", { token: bogus }));
    responses.push(await call("GET", "/v1/schemas", { token: revoked.token }));
    responses.push(await call("POST", "/v1/events", { token: account.token, json: { candidate_alias: "x", type: 5 } }));

    // An internal failure: the schemas table is unavailable.
    await dbOf(account).exec(`ALTER TABLE schemas RENAME TO schemas_offline`);
    try {
      const failed = await call("GET", "/v1/schemas", { token: account.token });
      expectStatus(failed, 500);
      expect(failed.body.error).toMatchObject({ code: "INTERNAL_ERROR", type: "api_error" });
      responses.push(failed);
    } finally {
      await dbOf(account).exec(`ALTER TABLE schemas_offline RENAME TO schemas`);
    }
    expect(logged.join("\n")).toContain("no such table"); // the failure itself is logged...

    for (const secret of [account.token, revoked.token, bogus]) {
      expect(logged.join("\n")).not.toContain(secret); // ...but never a token
      for (const res of responses) expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    for (const res of responses) {
      expect(JSON.stringify(res.body)).not.toMatch(
        /\bat \S*\s*\(?\S+\.(?:ts|js|mjs):\d+:\d+|SQLITE|no such table|SELECT |D1_ERROR/,
      );
    }
  });
});
