/** The HTTP surface shared by every endpoint: routing, bodies, the error shape, docs and OpenAPI. */
import { describe, expect, it } from "vitest";
import { call, client, contract, createAccount, expectStatus, okBody } from "../support/api";
import { env } from "cloudflare:test";
import { ERROR_CODES } from "../../src/errors/codes";
import { createApp } from "../../src/app";

const ERROR_KEYS = ["code", "doc_url", "message", "status", "type"];

function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(["error", "request_id"]);
  expect(
    Object.keys(res.body.error)
      .filter((k) => k !== "details")
      .sort(),
  ).toEqual(ERROR_KEYS);
  expect(res.body.error).toMatchObject({ code, status, doc_url: `https://api.test/docs/errors/${code}` });
  expect(res.body.request_id).toBe(res.headers.get("Request-Id"));
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
}

describe("routing", () => {
  it("answers an unknown route with 404 NOT_FOUND", async () => {
    const { token } = await createAccount();
    expectError(await call("GET", "/v1/nothing-here", { token }), 404, "NOT_FOUND");
    expectError(await call("GET", "/", {}), 404, "NOT_FOUND");
    expectError(await call("POST", "/v1/schemas/a/b", { token, raw: "not json" }), 404, "NOT_FOUND");
  });

  it("gives every request an id of its own, never one the request sent", async () => {
    const { token } = await createAccount();
    const sent = (await call("GET", "/v1/schemas", { token })).headers.get("Request-Id")!;
    for (const theirs of ["my-own-id", sent]) {
      const res = await call("GET", "/v1/nothing-here", { token, headers: { "Request-Id": theirs } });
      expectError(res, 404, "NOT_FOUND");
      expect(res.headers.get("Request-Id")).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(res.headers.get("Request-Id")).not.toBe(theirs);
    }
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const { token } = await createAccount();
    const res = await call("PUT", "/v1/schemas", { token, json: {} });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("Allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
    const del = await call("DELETE", "/v1/candidates/some-alias-1", { token });
    expectError(del, 405, "METHOD_NOT_ALLOWED");
    expect(del.headers.get("Allow")).toContain("GET");
  });

  it("treats a trailing slash as another path: 404, never a 405 naming the method used", async () => {
    const { token } = await createAccount();
    for (const [method, path] of [
      ["GET", "/v1/candidates/"],
      ["POST", "/v1/candidates/"],
      ["GET", "/v1/schemas/"],
      ["POST", "/v1/events/"],
      ["POST", "/v1/candidates/some-alias-1/resolve/"],
      ["GET", "/v1/openapi.json/"],
    ]) {
      const res = await call(method, path, method === "GET" ? { token } : { token, json: {} });
      expectError(res, 404, "NOT_FOUND");
      expect(res.headers.get("Allow")).toBeNull();
    }
  });

  it("never lists the refused method in Allow", async () => {
    const { token } = await createAccount();
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      for (const path of [
        "/v1/schemas",
        "/v1/schemas/x",
        "/v1/candidates",
        "/v1/candidates/some-alias-1",
        "/v1/candidates/some-alias-1/resolve",
        "/v1/events",
        "/v1/openapi.json",
      ]) {
        const res = await call(method, path, { token });
        if (res.status === 405)
          expect(res.headers.get("Allow")!.split(", "), `${method} ${path}`).not.toContain(method);
      }
    }
  });

  it("gives every response a Request-Id, including successes", async () => {
    const { token } = await createAccount();
    const res = await call("GET", "/v1/schemas", { token });
    expect(res.headers.get("Request-Id")).toMatch(/^[\w-]+$/);
  });
});

describe("request bodies", () => {
  it("rejects a body that is not JSON with 400 INVALID_JSON", async () => {
    const { token } = await createAccount();
    const headers = { "Content-Type": "application/json" };
    for (const raw of ["{", "", "{'a': 1}", "nul", '{"a":1}x']) {
      expectError(await call("POST", "/v1/schemas", { token, headers, raw }), 400, "INVALID_JSON");
    }
    // The message says what is wrong, and where, in the service's words (not the parser's).
    const said = async (raw: string) => {
      const res = await call("POST", "/v1/events", { token, headers, raw });
      expectError(res, 400, "INVALID_JSON");
      return res.body.error.message;
    };
    const prefix = "The request body is not valid JSON";
    expect(await said('{"value":01}')).toBe(`${prefix}: unexpected \`1\` at line 1, column 11.`);
    expect(await said('{\n  "type": "x",\n  "value": tru\n}')).toBe(`${prefix}: unexpected U+000A.`);
    expect(await said("{'a': 1}")).toBe(`${prefix}: unexpected \`'\` at line 1, column 2.`);
    expect(await said('{"a":1}x')).toBe(`${prefix}: something follows its value, at line 1, column 8 (\`x\`).`);
    expect(await said("[1,2")).toBe(`${prefix}: it ends before its value is complete.`);
    expect(await said("")).toBe(`${prefix}: it is empty.`);
    expect(await said(" \r\n\t")).toBe(`${prefix}: it holds only white space.`);
    // Only JSON's own four are white space to it; any other is a character it did not expect.
    for (const [raw, shown] of [
      ["\u00a0", "U+00A0"],
      ["\u2028", "U+2028"],
      ["\u3000", "U+3000"],
      ["\v", "U+000B"],
    ])
      expect(await said(raw)).toBe(`${prefix}: unexpected ${shown} at line 1, column 1.`);
    // A character outside the BMP is one character: named whole, where it stands outside a string
    // (not the same first half inside one), and counted once in a column.
    expect(await said("\u{1f600}")).toBe(`${prefix}: unexpected U+1F600 at line 1, column 1.`);
    expect(await said('["\u{1f4a9}",\n \u{1f600}]')).toBe(`${prefix}: unexpected U+1F600 at line 2, column 2.`);
    expect(await said('{"a":"\u{1f600}\u{1f600}",,}')).toBe(`${prefix}: unexpected \`,\` at line 1, column 11.`);
  });

  it("refuses bytes that are not UTF-8 with 400 INVALID_JSON, storing nothing (never U+FFFD in their place)", async () => {
    const account = await createAccount();
    const headers = { "Content-Type": "application/json" };
    const json = new TextEncoder().encode(
      JSON.stringify({ contract: contract({ fulfillment_condition: { event: "XX" } }) }),
    );
    const at = json.indexOf("X".charCodeAt(0));
    for (const bad of [
      [0xff, 0xfe],
      [0xc3, 0x28],
      [0xed, 0xa0],
    ]) {
      const raw = json.slice();
      raw.set(bad, at);
      const res = await call("POST", "/v1/schemas", { token: account.token, headers, raw });
      expectError(res, 400, "INVALID_JSON");
      expect(res.body.error.message).toContain("UTF-8");
    }
    expect(okBody(await client(account).get("/v1/schemas")).data).toEqual([]);
  });

  it("takes an optional body left out however it arrives: none, an empty stream, or empty JSON; anything else is judged", async () => {
    const account = await createAccount();
    const hook = okBody(await client(account).post("/v1/webhook_endpoints", { url: "https://example.com/hooks" }));
    const rotate = (options: { headers?: Record<string, string>; raw?: BodyInit }) =>
      call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token, ...options });
    const emptyStream = () => new ReadableStream({ start: (controller) => controller.close() });
    for (const [label, options] of [
      ["no body", {}],
      ["an empty stream (what a proxy may forward)", { raw: emptyStream() }],
      ["an empty JSON body", { headers: { "Content-Type": "application/json" }, raw: "" }],
      [
        "a byte-order mark alone",
        { headers: { "Content-Type": "application/json" }, raw: new Uint8Array([0xef, 0xbb, 0xbf]) },
      ],
      ["{}", { headers: { "Content-Type": "application/json" }, raw: "{}" }],
    ] as const) {
      const res = await rotate(options);
      expectStatus(res, 200, label);
      expect(res.body.secret, label).toMatch(/^whsec_/);
    }
    expectError(await rotate({ raw: "{}" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await rotate({ headers: { "Content-Type": "text/plain" }, raw: "" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(
      await rotate({ headers: { "Content-Type": "application/json" }, raw: '{"x":1}' }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("rejects a body without a JSON content type with 415", async () => {
    const { token } = await createAccount();
    const body = JSON.stringify({ contract: contract() });
    expectError(
      await call("POST", "/v1/schemas", { token, raw: body, headers: { "Content-Type": "text/plain" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expectError(await call("POST", "/v1/schemas", { token, raw: body }), 415, "UNSUPPORTED_MEDIA_TYPE");
    const ok = await call("POST", "/v1/schemas", {
      token,
      raw: body,
      headers: { "Content-Type": "application/json; charset=utf-8" },
    });
    expectStatus(ok, 201);
  });

  it("takes every spelling of the JSON media type RFC 9110 allows: case, spaces around `;`, empty parameters", async () => {
    const { token } = await createAccount();
    const body = JSON.stringify({ contract: contract() });
    for (const contentType of [
      "Application/JSON",
      "application/json ; charset=utf-8",
      "application/json\t;charset=UTF-8",
      "application/json;",
      "application/json; ;charset=utf-8",
      'application/json; charset="utf-8"',
    ]) {
      const res = await call("POST", "/v1/schemas", { token, raw: body, headers: { "Content-Type": contentType } });
      expectStatus(res, 201, contentType);
    }
    // Refused in the service's own words, never a library's.
    for (const contentType of ["application/jsonx", "application/json-patch+json", "text/json"]) {
      const res = await call("POST", "/v1/schemas", { token, raw: body, headers: { "Content-Type": contentType } });
      expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
      expect(res.body.error.message, contentType).toContain("Content-Type: application/json");
    }
  });

  it("refuses a compressed body with 415 and the codings it accepts, recording nothing", async () => {
    const { token } = await createAccount();
    const body = JSON.stringify({ contract: contract() });
    const gzipped = await new Response(
      new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer();
    const res = await call("POST", "/v1/schemas", {
      token,
      raw: gzipped,
      headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" },
    });
    expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(res.body.error.message).toContain("uncompressed");
    expect(res.headers.get("Accept-Encoding")).toBe("identity");
    expect((await call("GET", "/v1/schemas", { token })).body.data).toEqual([]);
    const plain = { "Content-Type": "application/json", "Content-Encoding": "identity" };
    expectStatus(await call("POST", "/v1/schemas", { token, raw: body, headers: plain }), 201);
  });

  it("rejects a body over 64 KiB with 413, by declared length and by streamed length", async () => {
    const { token } = await createAccount();
    const big = JSON.stringify({ contract: contract(), pad: "x".repeat(70_000) });
    const headers = { "Content-Type": "application/json" };
    expectError(await call("POST", "/v1/schemas", { token, headers, raw: big }), 413, "PAYLOAD_TOO_LARGE");
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    expectError(await call("POST", "/v1/schemas", { token, headers, raw: stream }), 413, "PAYLOAD_TOO_LARGE");
  });

  it("rejects JSON nested deeper than 64 levels before walking it", async () => {
    const { token } = await createAccount();
    const deep = "[".repeat(20_000) + "]".repeat(20_000);
    const res = await call("POST", "/v1/events", {
      token,
      headers: { "Content-Type": "application/json" },
      raw: `{"candidate_alias":"abcdefgh","type":"t","value":${deep}}`,
    });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.error.details[0].path).toMatch(/^value(\.0)+$/);
  });

  it("rejects strings and keys that are not Unicode (lone surrogates) at their path, storing nothing", async () => {
    const account = await createAccount();
    const api = client(account);
    const alias = `surrogate-${crypto.randomUUID()}`;
    const post = (path: string, raw: string) =>
      call("POST", path, { token: account.token, headers: { "Content-Type": "application/json" }, raw });
    const created = await post(
      "/v1/candidates",
      `{"candidate_alias":"${alias}","customer_uuid":"c\\ud800","contract":${JSON.stringify(contract())}}`,
    );
    expectError(created, 400, "VALIDATION_ERROR");
    expect(created.body.error.details).toEqual([
      { path: "customer_uuid", message: expect.stringMatching(/lone surrogate/) },
    ]);
    expect((await api.get(`/v1/candidates/${alias}`)).status).toBe(404);

    expect(
      (await api.post("/v1/candidates", { candidate_alias: alias, customer_uuid: "c", contract: contract() })).status,
    ).toBe(201);
    const cases: [string, string][] = [
      [`"type":"a\\udc00b"`, "type"],
      [`"type":"t","value":{"k":["fine","\\ud83d"]}`, "value.k.1"],
      [`"type":"t","value":{"\\ud800":1}`, "value"],
    ];
    for (const [fields, path] of cases) {
      const res = await post("/v1/events", `{"candidate_alias":"${alias}",${fields}}`);
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.error.details[0].path).toBe(path);
    }
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).events).toEqual([]);
  });

  it("lists every validation problem with a dotted path, unknown fields at their own path", async () => {
    const api = client(await createAccount());
    const res = await api.raw.post("/v1/schemas", {
      contract: {
        price: -1,
        activity_window: 0,
        review_window: "1",
        fulfillment_condition: { event: "", gte: "5", colour: "red" },
        timeout_outcome: "CONFIRM",
      },
      extra: true,
    });
    expectError(res, 400, "VALIDATION_ERROR");
    const paths = res.body.error.details.map((d: any) => d.path).sort();
    expect(paths).toEqual([
      "contract.activity_window",
      "contract.fulfillment_condition.colour",
      "contract.fulfillment_condition.event",
      "contract.fulfillment_condition.gte",
      "contract.price",
      "contract.review_window",
      "contract.timeout_outcome",
      "extra",
    ]);
    for (const d of res.body.error.details) expect(d.message).toEqual(expect.any(String));
  });
});

describe("docs and OpenAPI", () => {
  it("points doc_url at the configured DOCS_URL", async () => {
    const res = await createApp().request("/v1/schemas", {}, { ...env, DOCS_URL: "https://docs.example.com/ccs/" });
    expectStatus(res, 401);
    const body: any = await res.json();
    expect(body.error.doc_url).toBe("https://docs.example.com/ccs/errors/MISSING_API_TOKEN");
  });

  it("serves a documentation page for every error code, linked from doc_url, its markup rendered", async () => {
    for (const code of Object.keys(ERROR_CODES)) {
      const res = await call("GET", `/docs/errors/${code}`);
      expectStatus(res, 200, code);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(res.body).toContain(`<h1>${code}</h1>`);
      expect(res.body).not.toContain("`"); // code spans are rendered, not shown as Markdown
      expect(res.body).toContain('<a href="/docs">API reference</a>');
    }
    const validation = (await call("GET", "/docs/errors/VALIDATION_ERROR")).body;
    expect(validation).toContain("<code>details</code> lists every problem");
    const index = await call("GET", "/docs/errors");
    expect(index.body).toContain('<a href="/docs/errors/RATE_LIMITED">RATE_LIMITED</a>');
    expectError(await call("GET", "/docs/errors/NOPE"), 404, "NOT_FOUND");
  });

  it("serves the interactive API reference at /docs, its script from this Worker's own assets", async () => {
    const res = await call("GET", "/docs");
    expectStatus(res, 200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.body).toContain('<script src="/docs/scalar.js"');
    expect(res.body).toContain("/v1/openapi.json");
    expect(res.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost)[^"' ]*\.(js|css)/); // nothing from a CDN
    const script = await env.ASSETS.fetch("https://api.test/docs/scalar.js");
    expectStatus(script, 200);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
  });

  it("serves an OpenAPI 3.1 document without auth, covering every endpoint and its errors", async () => {
    const res = await call("GET", "/v1/openapi.json");
    expectStatus(res, 200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");
    const operations = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        "DELETE /v1/schemas/{id}",
        "GET /v1/candidates",
        "GET /v1/candidates/{candidate_alias}",
        "PATCH /v1/candidates/{candidate_alias}",
        "GET /v1/candidates/export",
        "GET /v1/schemas",
        "GET /v1/schemas/{id}",
        "PATCH /v1/schemas/{id}",
        "POST /v1/candidates",
        "POST /v1/candidates/{candidate_alias}/resolve",
        "POST /v1/events",
        "POST /v1/events/batch",
        "POST /v1/schemas",
        "DELETE /v1/webhook_endpoints/{id}",
        "GET /v1/notifications",
        "GET /v1/notifications/{id}",
        "GET /v1/webhook_endpoints",
        "GET /v1/webhook_endpoints/{id}",
        "GET /v1/webhook_endpoints/{id}/deliveries",
        "PATCH /v1/webhook_endpoints/{id}",
        "POST /v1/notifications/{id}/resend",
        "POST /v1/webhook_endpoints",
        "POST /v1/webhook_endpoints/{id}/rotate_secret",
        "POST /v1/webhook_endpoints/{id}/test",
        "GET /v1/summary",
        "POST /v1/api_keys",
        "GET /v1/api_keys",
        "GET /v1/api_keys/{id}",
        "PATCH /v1/api_keys/{id}",
        "POST /v1/api_keys/{id}/roll",
        "POST /v1/api_keys/{id}/revoke",
      ].sort(),
    );
    for (const ops of Object.values(doc.paths) as any[]) {
      for (const [method, op] of Object.entries(ops) as [string, any][]) {
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["401", "403", "500"]));
        const idempotencyKey = (op.parameters ?? []).find((p: any) => p.name === "Idempotency-Key");
        if (method === "post") expect(idempotencyKey).toMatchObject({ in: "header", schema: { maxLength: 255 } });
        else expect(idempotencyKey).toBeUndefined();
        // What a reader of the reference and a generated client need: a name, and an example of
        // every parameter, body and response. Not of Idempotency-Key: the reference's "Test
        // Request" would send that one key with every POST, and the second would be a 409. Nor of
        // Bookmark, which only the service can make: "Test Request" would send a made-up one.
        expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
        for (const parameter of op.parameters ?? []) {
          const example =
            parameter.example ?? parameter.examples ?? parameter.schema?.example ?? parameter.schema?.examples;
          if (parameter === idempotencyKey || parameter.name === "Bookmark")
            expect(example, op.operationId).toBeUndefined();
          else expect(example, `${op.operationId} ${parameter.name}`).toBeDefined();
        }
        const body = op.requestBody?.content["application/json"];
        if (body)
          expect(
            body.example ?? doc.components.schemas[body.schema.$ref?.split("/").pop()]?.example,
            `${op.operationId} body`,
          ).toBeDefined();
        for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
          const json = response.content?.["application/json"];
          if (json) expect(json.example ?? json.examples, `${op.operationId} ${status}`).toBeDefined();
        }
      }
    }
    // Page sizes say their range; a default only where one applies (the summary's needs group_by;
    // the schemas' absent lists every schema, as the interface asks).
    const limitOf = (path: string) => doc.paths[path].get.parameters.find((p: any) => p.name === "limit").schema;
    for (const path of [
      "/v1/candidates",
      "/v1/notifications",
      "/v1/webhook_endpoints/{id}/deliveries",
      "/v1/api_keys",
    ]) {
      expect(limitOf(path), path).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 50 });
    }
    expect(limitOf("/v1/summary")).toMatchObject({ minimum: 1, maximum: 100 });
    expect(limitOf("/v1/summary")).not.toHaveProperty("default");
    expect(limitOf("/v1/schemas")).toMatchObject({ minimum: 1, maximum: 100 });
    expect(limitOf("/v1/schemas")).not.toHaveProperty("default");
    expect(doc.servers).toEqual([expect.objectContaining({ url: expect.stringMatching(/^https?:\/\//) })]);
    expect(doc.paths["/v1/events"].post.responses["409"].description).toContain("EVENT_LIMIT_REACHED");
    expect(doc.components.schemas).toHaveProperty("ConditionNode");
  });
});
