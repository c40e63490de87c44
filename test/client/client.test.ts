/**
 * The typed client (clients/typescript) against the real Worker: the README's walk-through, typed
 * errors, retries that reuse their Idempotency-Key, Retry-After, pagination, webhook verification.
 */
import { describe, expect, it, vi } from "vitest";
import { SELF } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import {
  CandidateContractError,
  createCandidateContractClient,
  verifyWebhook,
  type Contract,
} from "../../clients/typescript/src/index";
import { contract, createAccount, freshAlias, type TestAccount } from "../support/api";
import { observeD1 } from "../support/d1-observer";
import { inKeyStore } from "../support/key-store";
import { requestFingerprint } from "../../src/idempotency";
import { endpoint, received } from "../support/webhooks";

const BASE = "https://api.test";
const worker: typeof fetch = (input, init) => SELF.fetch(new Request(input, init));

async function clientFor(
  send: typeof fetch = worker,
  options: { backoffMs?: number; timeoutMs?: number; maxRetryAfterMs?: number; account?: TestAccount } = {},
) {
  const account = options.account ?? (await createAccount());
  return createCandidateContractClient({
    baseUrl: BASE,
    token: account.token,
    fetch: send,
    backoffMs: options.backoffMs ?? 1,
    timeoutMs: options.timeoutMs,
    maxRetryAfterMs: options.maxRetryAfterMs,
  });
}

describe("the TypeScript client", () => {
  it("walks through the README: a schema, a candidate, events, the read and the list", async () => {
    const client = await clientFor();
    const schema = await client.schemas.create({
      price: 49.5,
      activity_window: 604800,
      review_window: 86400,
      fulfillment_condition: { event: "purchase", field: "total", gte: 100 },
      timeout_outcome: "fail",
    });
    const alias = freshAlias("client");
    const created = await client.candidates.create({ customer_uuid: "cust_42", candidate_alias: alias });
    expect(created).toMatchObject({ status: "OPEN", schema_id: schema.id });
    await client.events.submit({ candidate_alias: alias, type: "purchase", value: { total: 80 } });
    const hit = await client.events.submit({ candidate_alias: alias, type: "purchase", value: { total: 120 } });
    expect(hit.candidate).toMatchObject({ status: "PENDING", scheduled_outcome: "CONFIRMED" });
    expect((await client.candidates.get(alias)).events).toHaveLength(2);
    const [result] = await client.events.submitBatch([{ candidate_alias: alias, type: "view" }]);
    expect(result.status).toBe(201);
    expect((await client.summary()).PENDING.count).toBe(1);
    const perCustomer = [];
    for await (const entry of client.summaryByCustomer({ limit: 1 })) perCustomer.push(entry);
    expect(perCustomer.map((c) => [c.customer_uuid, c.PENDING.amount])).toEqual([["cust_42", "49.5"]]);
  });

  it("iterates every page of a list", async () => {
    const client = await clientFor();
    const aliases = [];
    for (let i = 0; i < 5; i++) {
      const alias = freshAlias(`page${i}`);
      await client.candidates.create({ customer_uuid: "c", candidate_alias: alias, contract: contract() as never });
      aliases.push(alias);
    }
    const seen: string[] = [];
    for await (const candidate of client.candidates.list({ limit: 2 })) seen.push(candidate.candidate_alias);
    expect(seen).toEqual(aliases.reverse());
  });

  it("reads its own write: it sends back the newest Bookmark it was answered, where the read's D1 session starts", async () => {
    const exchanges: { method: string; sent: string | null; answered: string | null }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await worker(request);
      exchanges.push({
        method: request.method,
        sent: request.headers.get("Bookmark"),
        answered: response.headers.get("Bookmark"),
      });
      return response;
    };
    const client = await clientFor(recording);
    const alias = freshAlias("own-write");
    await client.candidates.create({ customer_uuid: "c", candidate_alias: alias, contract: contract() as never });
    const written = exchanges.at(-1)!.answered!;
    expect(exchanges.at(-1)).toEqual({
      method: "POST",
      sent: null,
      answered: expect.stringMatching(/^SHARD_\d+:[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/),
    });
    const listed: string[] = [];
    const d1 = await observeD1(async () => {
      for await (const candidate of client.candidates.list()) listed.push(candidate.candidate_alias);
    });
    expect(listed).toEqual([alias]);
    // The list went with the bookmark of the client's own write, and its D1 session started there.
    expect(exchanges.at(-1)).toMatchObject({ method: "GET", sent: written });
    expect(d1.sessions).toEqual([written.slice(written.indexOf(":") + 1)]); // D1's, past the shard
    // The newest it has seen goes next: the list's, never older than the write's.
    const read = exchanges.at(-1)!.answered!;
    expect(read >= written).toBe(true);
    await client.summary();
    expect(exchanges.at(-1)!.sent).toBe(read);
  });

  it("keeps one bookmark per database: one from another shard replaces it (a client that signed in to another account)", async () => {
    const a = await createAccount();
    const b = await createAccount();
    expect(a.shard).not.toBe(b.shard);
    let token = a.token; // the dashboard's cookie: one client per page, whichever account signed in
    const exchanges: { sent: string | null; answered: string | null }[] = [];
    const signedIn: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      request.headers.set("Authorization", `Bearer ${token}`);
      const response = await worker(request);
      exchanges.push({ sent: request.headers.get("Bookmark"), answered: response.headers.get("Bookmark") });
      return response;
    };
    const client = createCandidateContractClient({ baseUrl: BASE, fetch: signedIn, backoffMs: 1 });
    // Enough writes on A's shard that its bookmarks are past B's as text, as a busy shard's would be.
    for (let i = 0; i < 20; i++) await client.schemas.create(contract() as never);
    const onA = exchanges.at(-1)!.answered!;
    expect(onA.startsWith(`${a.shard}:`)).toBe(true);
    token = b.token;
    await client.schemas.create(contract() as never);
    // B's shard ignored A's bookmark, and B's own replaced it in the client, whatever their order as text.
    const onB = exchanges.at(-1)!;
    expect(onB.sent).toBe(onA);
    expect(onB.answered!.startsWith(`${b.shard}:`)).toBe(true);
    const d1 = await observeD1(() => client.schemas.list());
    expect(exchanges.at(-1)!.sent).toBe(onB.answered);
    expect(d1.sessions).toEqual([onB.answered!.slice(onB.answered!.indexOf(":") + 1)]);
  });

  it("covers metadata, voiding, the export, schema names and pages, and webhook tests", async () => {
    const client = await clientFor();
    for (let i = 0; i < 3; i++) await client.schemas.create(contract() as never, { name: `plan ${i}` });
    expect((await client.schemas.list()).map((s) => s.name)).toEqual(["plan 2", "plan 1", "plan 0"]);
    const alias = freshAlias("client-meta");
    await client.candidates.create({
      customer_uuid: "c",
      candidate_alias: alias,
      contract: contract() as never,
      metadata: { order_id: "ord_1", region: "eu" },
    });
    const changed = await client.candidates.updateMetadata(alias, { region: "" });
    expect(changed.metadata).toEqual({ order_id: "ord_1" });
    const listed = [];
    for await (const candidate of client.candidates.list({ metadata: { order_id: "ord_1" } }))
      listed.push(candidate.candidate_alias);
    expect(listed).toEqual([alias]);
    expect((await client.candidates.resolve(alias, "FAILED")).status).toBe("FAILED");
    const csv = await (await client.candidates.export({ status: "FAILED" })).text();
    expect(csv.split("\r\n")[1]).toMatch(new RegExp(`^${alias},c,FAILED,`));
    const endpoint = await client.webhookEndpoints.create({ url: "http://127.0.0.1:9/unreachable" });
    const attempt = await client.webhookEndpoints.test(endpoint.id);
    expect(attempt).toMatchObject({ type: "webhook.test", status: "failed", response_status: null });
  });

  it("has a call for every operation: schema and endpoint changes, secret rotation, deletes, a resend", async () => {
    const client = await clientFor();
    const schema = await client.schemas.create(contract() as never, { name: "before" });
    expect((await client.schemas.update(schema.id, { name: "after" })).name).toBe("after");
    const alias = freshAlias("client-every");
    await client.candidates.create({ customer_uuid: "c", candidate_alias: alias, schema_id: schema.id });
    await client.schemas.delete(schema.id);
    await expect(client.schemas.get(schema.id)).rejects.toMatchObject({ status: 404 });

    const endpoint = await client.webhookEndpoints.create({ url: "http://127.0.0.1:9/unreachable" });
    expect((await client.webhookEndpoints.get(endpoint.id)).url).toBe("http://127.0.0.1:9/unreachable");
    const paused = await client.webhookEndpoints.update(endpoint.id, { status: "disabled", description: "paused" });
    expect(paused).toMatchObject({ status: "disabled", description: "paused" });
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await client.webhookEndpoints.update(endpoint.id, { status: "enabled" });

    await client.candidates.resolve(alias, "FAILED");
    const feed = [];
    for await (const notification of client.notifications.list({ candidate_alias: alias })) feed.push(notification);
    const [failed] = feed;
    expect(failed.type).toBe("candidate.failed");
    const resent = await client.notifications.resend(failed.id, endpoint.id);
    expect(resent).toMatchObject({ notification_id: failed.id, webhook_endpoint_id: endpoint.id });

    await client.webhookEndpoints.delete(endpoint.id);
    await expect(client.webhookEndpoints.get(endpoint.id)).rejects.toMatchObject({
      code: "WEBHOOK_ENDPOINT_NOT_FOUND",
    });
  });

  it("manages API keys, and surfaces a missing permission as PERMISSION_DENIED", async () => {
    const sent: { method: string; key: string | null }[] = [];
    const client = await clientFor((input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, key: request.headers.get("Idempotency-Key") });
      return worker(request);
    });
    const key = await client.apiKeys.create({ name: "events only", permissions: ["events:write"] });
    expect(key.secret).toMatch(/^cct_/);
    const restricted = createCandidateContractClient({ baseUrl: BASE, token: key.secret, fetch: worker });
    const denied = (await restricted.summary().catch((error: unknown) => error)) as CandidateContractError;
    expect(denied).toBeInstanceOf(CandidateContractError);
    expect(denied).toMatchObject({
      code: "PERMISSION_DENIED",
      status: 403,
      message: "This API key lacks `billing:read`, which GET /v1/summary needs.",
    });
    expect((await client.apiKeys.rename(key.id, "checkout")).name).toBe("checkout");
    const rolled = await client.apiKeys.roll(key.id, { expiresIn: 60 });
    expect(rolled).toMatchObject({ name: "checkout", permissions: ["events:write"] });
    expect((await client.apiKeys.revoke(rolled.id)).status).toBe("revoked");
    expect((await client.apiKeys.get(key.id)).expires_at).not.toBeNull();
    const active = [];
    for await (const each of client.apiKeys.list({ status: "active", limit: 1 })) active.push(each.id);
    expect(active).toHaveLength(2); // the account's first key and the rolled one, until it expires
    // Every key POST carries an Idempotency-Key, as every other POST does.
    const keys = sent.filter((r) => r.method === "POST").map((r) => r.key);
    expect(keys).toEqual([expect.any(String), expect.any(String), expect.any(String)]);
  });

  it("retries a key create whose answer was lost: one key made, its secret in the answer", async () => {
    let attempts = 0;
    let made: { id: string; secret: string } | undefined;
    const client = await clientFor(async (input, init) => {
      const answer = await worker(input, init);
      if (++attempts > 1) return answer;
      made = await answer.json(); // the key was made; its answer never reaches the caller
      return new Response("{}", { status: 502 });
    });
    const key = await client.apiKeys.create({ name: "once" });
    expect(attempts).toBe(2);
    expect(key).toMatchObject({ id: made!.id, secret: made!.secret });
    const named = [];
    for await (const each of client.apiKeys.list()) if (each.name === "once") named.push(each.id);
    expect(named).toEqual([made!.id]);
  });

  it("takes a retried DELETE's 404 for success only after an attempt that may have deleted; PATCH sets the same again", async () => {
    const sent: string[] = [];
    // Every other PATCH or DELETE is carried out, and its answer never comes (the attempt times out).
    const lostAnswers: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const answer = await worker(request);
      if (request.method === "GET" || request.method === "POST") return answer;
      sent.push(`${request.method} ${answer.status}`);
      if (sent.length % 2 === 0) return answer;
      return new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));
    };
    const client = await clientFor(lostAnswers, { timeoutMs: 200 });
    const endpoint = await client.webhookEndpoints.create({ url: "http://127.0.0.1:9/unreachable" });
    expect((await client.webhookEndpoints.update(endpoint.id, { description: "twice" })).description).toBe("twice");
    await client.webhookEndpoints.delete(endpoint.id);
    expect(sent).toEqual(["PATCH 200", "PATCH 200", "DELETE 204", "DELETE 404"]);
    await expect(client.webhookEndpoints.get(endpoint.id)).rejects.toMatchObject({
      code: "WEBHOOK_ENDPOINT_NOT_FOUND",
    });

    // Not after a failure that did nothing: a reset, a proxy's 502, then the 404 of what never existed.
    const missing = "01936f20-1a2b-7c3d-8e4f-5a6b7c8d9e0f";
    for (const first of [
      () => Promise.reject(new TypeError("fetch failed", { cause: { code: "ECONNRESET" } })),
      async () => new Response("<html>bad gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } }),
    ]) {
      let deletes = 0;
      const failingFirst: typeof fetch = async (input, init) => {
        const request = new Request(input, init);
        return request.method === "DELETE" && deletes++ === 0 ? first() : worker(request);
      };
      const failing = await clientFor(failingFirst);
      await expect(failing.schemas.delete(missing)).rejects.toMatchObject({ code: "SCHEMA_NOT_FOUND" });
      expect(deletes).toBe(2);
    }
  });

  it("stops paging when the service answers a cursor it answered before", async () => {
    let pages = 0;
    const cycling: typeof fetch = async () =>
      Response.json({ data: [{ id: `s${pages}` }], next_cursor: ["a", "b"][pages++ % 2] });
    const client = await clientFor(cycling);
    await expect(client.schemas.list()).rejects.toThrow('The service answered the cursor "a" again');
    expect(pages).toBe(3);
  });

  it("sends a DELETE once when its 204 comes with an empty body stream, as browsers give it", async () => {
    const sent: string[] = [];
    // Chromium's fetch answers a 204 with an empty stream rather than no body: copied as it came, it
    // would be a TypeError, taken for a lost answer, and the DELETE sent again (then a 404).
    const browserLike: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push(`${request.method} ${new URL(request.url).pathname}`);
      const answer = await worker(request);
      if (answer.status !== 204) return answer;
      return Object.defineProperty(answer, "body", { value: new ReadableStream({ start: (c) => c.close() }) });
    };
    // And as browsers do (the standard; workerd lets it pass): a body given with a null-body status is a TypeError.
    class StandardResponse extends Response {
      constructor(body?: BodyInit | null, init?: ResponseInit) {
        if (body != null && [101, 103, 204, 205, 304].includes(init?.status ?? 200))
          throw new TypeError("Response with null body status cannot have body");
        super(body, init);
      }
    }
    vi.stubGlobal("Response", StandardResponse);
    try {
      const client = await clientFor(browserLike);
      const schema = await client.schemas.create(contract() as Contract);
      const deleted = await client.api.DELETE("/v1/schemas/{id}", { params: { path: { id: schema.id } } });
      expect(deleted.response.status).toBe(204);
      expect(sent.filter((line) => line.startsWith("DELETE"))).toEqual([`DELETE /v1/schemas/${schema.id}`]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("throws one typed error with the API's code, details and request id", async () => {
    const client = await clientFor();
    const missing = await client.candidates.get("no-such-alias-1").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CandidateContractError);
    expect(missing).toMatchObject({
      code: "CANDIDATE_NOT_FOUND",
      status: 404,
      requestId: expect.any(String),
      docUrl: expect.stringContaining("CANDIDATE_NOT_FOUND"),
    });
    const invalid = await client.schemas
      .create({ ...(contract() as Contract), price: -1 })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({
      code: "VALIDATION_ERROR",
      status: 400,
      details: [{ path: "contract.price", message: expect.any(String) }],
    });
  });

  it("retries a POST whose answer was lost with the same Idempotency-Key: the event is recorded once", async () => {
    const keys: (string | null)[] = [];
    const flaky: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "POST" && request.url.endsWith("/v1/events")) {
        keys.push(request.headers.get("Idempotency-Key"));
        const response = await worker(request);
        if (keys.length === 1) return new Response("upstream timeout", { status: 503 }); // the answer is lost
        return response;
      }
      return worker(request);
    };
    const client = await clientFor(flaky);
    const alias = freshAlias("retry");
    await client.candidates.create({ customer_uuid: "c", candidate_alias: alias, contract: contract() as never });
    const answer = await client.events.submit({ candidate_alias: alias, type: "ping" });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect((await client.candidates.get(alias)).events.map((e) => e.id)).toEqual([answer.event.id]);
  });

  it("waits for Retry-After on 429, and retries network errors", async () => {
    let calls = 0;
    const busy: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1)
        return new Response(JSON.stringify({ error: { code: "RATE_LIMITED" } }), {
          status: 429,
          headers: { "Retry-After": "1" },
        });
      if (calls === 2) throw new TypeError("connection reset");
      return worker(input, init);
    };
    const client = await clientFor(busy);
    const started = Date.now();
    expect(await client.schemas.list()).toEqual([]);
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    const down = await clientFor(async () => Promise.reject(new TypeError("no route to host")));
    await expect(down.schemas.list()).rejects.toMatchObject({ code: "NETWORK_ERROR", status: 0 });
    // The platform's reason stays: undici says "fetch failed" and puts the cause beneath.
    const refused = new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    const closed = await clientFor(async () => Promise.reject(refused));
    const error = await closed.schemas.list().catch((e: CandidateContractError) => e);
    expect(error).toMatchObject({ message: "The service could not be reached: fetch failed (ECONNREFUSED)" });
    expect((error as Error).cause).toBe(refused);
  });

  it("hands the export on as it streams, however long it takes: no buffering, no timeout on the body", async () => {
    const encoder = new TextEncoder();
    let bodyEnded = false;
    const slowCsv: typeof fetch = async () =>
      new Response(
        new ReadableStream({
          async start(controller) {
            controller.enqueue(encoder.encode("candidate_alias\r\n"));
            for (let i = 0; i < 3; i++) {
              await new Promise((r) => setTimeout(r, 100));
              controller.enqueue(encoder.encode(`row-${i}\r\n`));
            }
            bodyEnded = true;
            controller.close();
          },
        }),
        { headers: { "Content-Type": "text/csv; charset=utf-8" } },
      );
    const client = await clientFor(slowCsv, { timeoutMs: 150 });
    const response = await client.candidates.export();
    expect(bodyEnded).toBe(false); // answered at its headers, not at its end
    expect(await response.text()).toBe("candidate_alias\r\nrow-0\r\nrow-1\r\nrow-2\r\n"); // 300 ms > timeoutMs
    // The caller's signal stops the body as it comes.
    const stop = new AbortController();
    const stopped = await client.candidates.export({}, { signal: stop.signal });
    const reading = stopped.text();
    setTimeout(() => stop.abort(new Error("enough")), 50);
    await expect(reading).rejects.toThrow("enough");
  });

  it("waits while an earlier attempt holds the key (409 IN_USE, Retry-After), then gets that attempt's answer", async () => {
    let posts = 0;
    const account = await createAccount();
    const flaky: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (!(request.method === "POST" && request.url.endsWith("/v1/events")) || ++posts > 1) return worker(request);
      // The first attempt claimed the key, then died on its way to the candidate, holding the key
      // for one more second.
      const key = request.headers.get("Idempotency-Key")!;
      const fingerprint = await requestFingerprint("POST", "/v1/events", await request.json());
      await inKeyStore(account.id, key, (sql) =>
        sql.exec(
          `INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at, locked_until) VALUES (?, ?, ?, ?, ?)`,
          account.id,
          key,
          fingerprint,
          Date.now(),
          Date.now() + 1000,
        ),
      );
      return new Response("bad gateway", { status: 502 });
    };
    const client = await clientFor(flaky, { account });
    const alias = freshAlias("in-use");
    await client.candidates.create({ customer_uuid: "c", candidate_alias: alias, contract: contract() as never });
    const answer = await client.events.submit({ candidate_alias: alias, type: "ping" });
    expect(posts).toBeGreaterThanOrEqual(3); // 502, then 409 IN_USE until the hold lapsed, then the replay
    expect((await client.candidates.get(alias)).events.map((e) => e.id)).toEqual([answer.event.id]);
  });

  it("asks again soon while an attempt still running holds the key, not only when its hold lapses", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200~600"); // a test send that takes 0.6 s
    let running: Promise<Response> | undefined;
    const held: { retryAfter: number; at: number }[] = [];
    const lostFirst: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (!request.url.endsWith("/test")) return worker(request);
      if (!running) {
        running = worker(request); // it goes on, holding the key; its answer is lost
        return new Response("bad gateway", { status: 502 });
      }
      const answer = await worker(request);
      if (answer.status === 409) held.push({ retryAfter: Number(answer.headers.get("Retry-After")), at: Date.now() });
      return answer;
    };
    // A longest wait shorter than the hold's Retry-After: asking again soon is no wait that long.
    const client = await clientFor(lostFirst, { account, maxRetryAfterMs: 5_000 });
    const attempt = await client.webhookEndpoints.test(hook.id, { idempotencyKey: "test-send-once" });
    expect(attempt).toMatchObject({ type: "webhook.test", status: "succeeded", response_status: 200 });
    expect((await running!).status).toBe(200);
    expect(await received(hook.name)).toHaveLength(1); // sent once: the retry got the first attempt's answer
    expect(held.length).toBeGreaterThan(0);
    // Answered once the first attempt was, long before the Retry-After of its hold (about 30 s).
    expect(Date.now() - held[0].at).toBeLessThan(held[0].retryAfter * 1000 - 20_000);
  });

  it("says the key of a POST that failed for good, so calling again with it does nothing twice", async () => {
    let reachable = false;
    const cut: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await worker(request);
      if (!reachable && request.url.endsWith("/v1/events")) throw new TypeError("connection reset"); // after the event was recorded
      return response;
    };
    const client = await clientFor(cut);
    const alias = freshAlias("cut");
    await client.candidates.create({ customer_uuid: "c", candidate_alias: alias, contract: contract() as never });
    const failed = (await client.events
      .submit({ candidate_alias: alias, type: "ping" })
      .catch((error: unknown) => error)) as CandidateContractError;
    expect(failed).toMatchObject({ code: "NETWORK_ERROR", idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    reachable = true;
    const again = await client.events.submit(
      { candidate_alias: alias, type: "ping" },
      { idempotencyKey: failed.idempotencyKey! },
    );
    expect((await client.candidates.get(alias)).events.map((e) => e.id)).toEqual([again.event.id]);
  });

  it("reads Retry-After as an HTTP date, answers a wait too long as the error, and stops when aborted", async () => {
    let calls = 0;
    const limited =
      (retryAfter: string): typeof fetch =>
      async (input, init) =>
        ++calls === 1
          ? new Response(JSON.stringify({ error: { code: "RATE_LIMITED" } }), {
              status: 429,
              headers: { "Retry-After": retryAfter },
            })
          : worker(input, init);
    expect(await (await clientFor(limited(new Date(Date.now() + 1000).toUTCString()))).schemas.list()).toEqual([]);
    expect(calls).toBe(2);
    calls = 0;
    await expect((await clientFor(limited("3600"))).schemas.list()).rejects.toMatchObject({
      code: "RATE_LIMITED",
      status: 429,
    });
    expect(calls).toBe(1);

    const down = await clientFor(async () => Promise.reject(new TypeError("no route to host")), { backoffMs: 10_000 });
    const controller = new AbortController();
    const started = Date.now();
    const call = down.schemas.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error("the caller gave up")), 50);
    await expect(call).rejects.toThrow("the caller gave up");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("retries an attempt that does not answer within timeoutMs, and says so when none does", async () => {
    let calls = 0;
    const silent = (init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true }),
      );
    const firstSilent: typeof fetch = async (input, init) => (++calls === 1 ? silent(init) : worker(input, init));
    expect(await (await clientFor(firstSilent, { timeoutMs: 100 })).schemas.list()).toEqual([]);
    expect(calls).toBe(2);

    // Headers in time, then a body that stops coming: the same.
    calls = 0;
    const stalledBody = (init?: RequestInit) =>
      new Response(
        new ReadableStream({
          start: (controller) => init?.signal?.addEventListener("abort", () => controller.error(init.signal!.reason)),
        }),
        {
          headers: { "Content-Type": "application/json" },
        },
      );
    const firstStalled: typeof fetch = async (input, init) => (++calls === 1 ? stalledBody(init) : worker(input, init));
    expect(await (await clientFor(firstStalled, { timeoutMs: 100 })).schemas.list()).toEqual([]);
    expect(calls).toBe(2);

    const client = createCandidateContractClient({
      baseUrl: BASE,
      token: "cct_x",
      fetch: async (_, init) => silent(init),
      backoffMs: 1,
      timeoutMs: 50,
      maxRetries: 1,
    });
    await expect(client.schemas.list()).rejects.toMatchObject({
      code: "NETWORK_ERROR",
      message: expect.stringContaining("no answer within 50 ms"),
    });
  });

  it("types requests: a wrong field does not compile", async () => {
    const client = await clientFor();
    // @ts-expect-error: a price is a number, not a string
    const wrong = client.schemas.create({ ...(contract() as Contract), price: "49.5" });
    await expect(wrong).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    // @ts-expect-error: no such field
    await expect(client.events.submit({ candidate_alias: "some-alias-1", type: "x", typo: 1 })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
  });

  it("verifies a webhook delivery, and refuses a forged one", () => {
    const secret = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
    const body = JSON.stringify({
      id: "ntf_x_pending",
      type: "candidate.pending",
      timestamp: new Date().toISOString(),
      data: {},
    });
    const signature = new Webhook(secret).sign("ntf_x_pending", new Date(), body);
    const headers = new Headers({
      "webhook-id": "ntf_x_pending",
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": signature,
    });
    expect(verifyWebhook(secret, body, headers).id).toBe("ntf_x_pending");
    // Headers of another fetch implementation (not this realm's Headers class), and a plain record.
    const foreign = {
      entries: () => headers.entries(),
      get: (name: string) => headers.get(name),
    } as unknown as Headers;
    expect(verifyWebhook(secret, body, foreign).id).toBe("ntf_x_pending");
    expect(verifyWebhook(secret, body, Object.fromEntries(headers)).id).toBe("ntf_x_pending");
    expect(() => verifyWebhook(secret, body.replace("pending", "confirmed"), headers)).toThrow();
    // Node's request.headers: any case, a value may be a list or absent. A test event narrows by its type.
    const test = JSON.stringify({
      id: "test_1",
      type: "webhook.test",
      timestamp: new Date().toISOString(),
      data: { webhook_endpoint_id: "e" },
    });
    const nodeHeaders = {
      "Webhook-Id": "test_1",
      "webhook-timestamp": [String(Math.floor(Date.now() / 1000))],
      "webhook-signature": new Webhook(secret).sign("test_1", new Date(), test),
      "x-absent": undefined,
    };
    const verified = verifyWebhook(secret, test, nodeHeaders);
    expect(verified.type === "webhook.test" && verified.data.webhook_endpoint_id).toBe("e");
  });
});
