/**
 * Smoke run of the service as a new user meets it: `npm run dev` from the README, the printed
 * token, the curl walk-through, the accounts CLI, webhooks to a receiver on this machine, restarts
 * that keep every candidate and its pending window end (and its notification), and a stop that
 * leaves nothing running. Run with `npm run smoke` (node's test runner); it uses its own port.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { startReceiver, type Received } from "./lib/webhook-receiver.ts";
import { DevServer } from "./lib/dev-server.ts";

const run = promisify(execFile);
const dev = new DevServer();
const API = dev.url;
const startDev = () => dev.start();
const stopDev = (signal?: NodeJS.Signals) => dev.stop(signal);

after(() => dev.cleanUp());

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Wall time of every accounts CLI call, as its user waits for it: npm, Node's start, the work. */
const cliTimes: { args: string; ms: number }[] = [];
after(() => {
  if (cliTimes.length === 0) return;
  const sorted = cliTimes.map((t) => t.ms).sort((a, b) => a - b);
  const slowest = cliTimes.reduce((a, b) => (b.ms > a.ms ? b : a));
  console.log(
    `accounts CLI: ${cliTimes.length} calls, median ${sorted[sorted.length >> 1]} ms, p90 ${sorted[Math.floor(sorted.length * 0.9)]} ms, slowest ${slowest.ms} ms (${slowest.args})`,
  );
  console.log(`accounts CLI, each call in order (ms): ${cliTimes.map((t) => t.ms).join(" ")}`);
});

/** One documented CLI call with --json, timed (reported after the run, never judged): its JSON output. */
async function accounts(...args: string[]) {
  const started = performance.now();
  const { stdout } = await run("npm", ["run", "-s", "accounts", "--", ...args, "--json"]);
  const ms = Math.round(performance.now() - started);
  cliTimes.push({ args: args.join(" "), ms });
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

/** The failed CLI call's exit code and its JSON error. */
async function accountsFailing(...args: string[]) {
  const env = { ...process.env, CCS_OPERATOR_SECRET: "smoke" }; // read by --remote only
  const failed = await run("npm", ["run", "-s", "accounts", "--", ...args, "--json"], { env }).then(
    () => assert.fail(`accounts ${args.join(" ")} succeeded`),
    (error: { code: number; stderr: string }) => error,
  );
  return { code: failed.code, error: JSON.parse(failed.stderr.trim().split("\n").pop()!).error };
}

const alias = `smoke-${Date.now()}`;
let token = "";

test("npm run dev starts and prints a usable token and a sign-in link", async () => {
  token = await startDev();
  assert.match(token, /^cct_[\w-]{43}$/);
  assert.equal((await api("GET", "/v1/schemas", token)).status, 200);
  const anonymous = await fetch(`${API}/v1/schemas`);
  assert.equal(anonymous.status, 401);
  assert.match(dev.signInUrl, new RegExp(`^${API}/dashboard/sign-in#code=[\\w-]{43}$`));
  // The local operator secret it made is in no output, and nothing works without it.
  const secret = /^OPERATOR_SECRET=(\S+)$/m.exec(readFileSync(".wrangler/operator.env", "utf8"))![1];
  assert.ok(!dev.output.includes(secret), "npm run dev printed the operator secret");
  assert.equal((await fetch(`${API}/operator/v1/accounts`)).status, 401);
  assert.equal(
    (await fetch(`${API}/operator/v1/accounts`, { headers: { Authorization: `Bearer ${secret}` } })).status,
    200,
  );
});

test("a second npm run dev in the same directory refuses to start, and the first serves on", async () => {
  const before = readFileSync(".wrangler/dev-server.json", "utf8");
  const second = await run("npm", ["run", "-s", "dev", "--", "--port", String(dev.port + 1), "--ip", "127.0.0.1"], {
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: "" }),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(second.code, 1);
  assert.match(second.stderr, /npm run dev already runs in this directory \(pid \d+ at http:\/\/127\.0\.0\.1:\d+\)/);
  assert.equal(readFileSync(".wrangler/dev-server.json", "utf8"), before, "the second start took the first's place");
  assert.equal((await api("GET", "/v1/schemas", token)).status, 200);
});

test("the README walk-through works, through the typed client", async () => {
  // As a user of the client has it: built, and imported by its package name.
  await run("npm", ["run", "-s", "build", "-w", "clients/typescript"]);
  const { createCandidateContractClient, CandidateContractError } = await import("@candidate-contract-service/client");
  const ccs = createCandidateContractClient({ baseUrl: API, token });
  const schema = await ccs.schemas.create({
    price: 49.5,
    activity_window: 604800,
    review_window: 86400,
    fulfillment_condition: { event: "purchase", field: "total", gte: 100 },
    timeout_outcome: "fail",
  });
  const created = await ccs.candidates.create({ customer_uuid: "cust_42", candidate_alias: alias });
  assert.equal(created.schema_id, schema.id);
  const miss = await ccs.events.submit({ candidate_alias: alias, type: "purchase", value: { total: 80 } });
  assert.equal(miss.candidate.status, "OPEN");
  const hit = await ccs.events.submit({ candidate_alias: alias, type: "purchase", value: { total: 120 } });
  assert.equal(hit.candidate.status, "PENDING");
  assert.equal(hit.candidate.scheduled_outcome, "CONFIRMED");
  const read = await ccs.candidates.get(alias);
  assert.equal(read.events.length, 2);
  assert.deepEqual(
    read.condition_progress.leaves.map((leaf) => leaf.event_id),
    [hit.event.id],
  );
  const pending = [];
  for await (const candidate of ccs.candidates.list({ status: "PENDING", limit: 10 }))
    pending.push(candidate.candidate_alias);
  assert.equal(pending[0], alias); // newest first (earlier runs may have left others)
  await assert.rejects(ccs.candidates.create({ customer_uuid: "cust_42", candidate_alias: alias }), (error) => {
    assert.ok(error instanceof CandidateContractError);
    assert.equal(error.code, "CANDIDATE_ALIAS_TAKEN");
    assert.match(error.requestId ?? "", /\S/);
    return true;
  });
});

test("the README's TypeScript snippet runs as written", async () => {
  const readme = readFileSync("README.md", "utf8");
  const section = readme.slice(readme.indexOf("## Use it from TypeScript"));
  const snippet = section.match(/```ts\n([\s\S]*?)```/)![1];
  assert.match(snippet, /http:\/\/127\.0\.0\.1:8787/);
  // Inside the repository, so the client resolves as an installed package does.
  mkdirSync("test/artifacts", { recursive: true });
  writeFileSync("test/artifacts/readme-client.ts", snippet.replace("http://127.0.0.1:8787", API));
  // It type-checks as a user's strict project would see it, against the built package's types.
  const tsc = [
    "node_modules/typescript/bin/tsc",
    "--noEmit",
    "--strict",
    "--target",
    "es2022",
    "--module",
    "nodenext",
    "--types",
    "node",
    "--skipLibCheck",
    "--ignoreConfig",
  ];
  await run(process.execPath, [...tsc, "test/artifacts/readme-client.ts"]).catch((error: { stdout: string }) =>
    assert.fail(`the README's TypeScript snippet does not type-check:\n${error.stdout}`),
  );
  const { stdout } = await run(process.execPath, ["test/artifacts/readme-client.ts"], {
    env: { ...process.env, TOKEN: token },
  });
  assert.equal(stdout.trim(), "PENDING CONFIRMED");
});

test("every documented accounts CLI command works while the server runs", async () => {
  const created = await accounts("create", "--name", "Smoke");
  assert.match(created.account_id, /^[\w-]{36}$/);
  assert.match(created.token_id, /^[\w-]{36}$/);
  assert.match(created.token, /^cct_[\w-]{43}$/);
  assert.equal(created.name, "Smoke");
  assert.match(created.shard, /^SHARD_\d+$/);
  assert.equal((await api("GET", "/v1/schemas", created.token)).status, 200);
  const listed = await accounts("list");
  assert.deepEqual(
    listed.accounts.find((a: any) => a.account_id === created.account_id),
    { account_id: created.account_id, name: "Smoke", created_at: created.created_at, shard: created.shard },
  );

  const second = await accounts("tokens", "create", "--account", created.account_id);
  assert.equal(second.account_id, created.account_id);
  assert.match(second.token, /^cct_/);
  assert.equal(second.full_access, true);
  assert.equal((await api("GET", "/v1/candidates", second.token)).status, 200);
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const limited = await accounts(
    "tokens",
    "create",
    "--account",
    created.account_id,
    "--name",
    "Billing export",
    "--permissions",
    "billing:read,candidates:read",
    "--expires-at",
    expiresAt,
  );
  assert.equal(limited.name, "Billing export");
  assert.deepEqual(limited.permissions, ["billing:read", "candidates:read"]);
  assert.equal(limited.expires_at, expiresAt);
  const refused = await accountsFailing(
    "tokens",
    "create",
    "--account",
    created.account_id,
    "--permissions",
    "billing:read,billing:admin",
  );
  assert.equal(refused.code, 1);
  assert.equal(refused.error.code, "VALIDATION_ERROR");
  assert.deepEqual(
    refused.error.details.map((d: any) => d.path),
    ["permissions.1"],
  );
  assert.equal(
    (await accountsFailing("tokens", "list", "--account", "no-such-account")).error.code,
    "ACCOUNT_NOT_FOUND",
  );
  // --remote: an address that is no URL is a usage error; one that does not speak HTTPS says so.
  assert.equal((await accountsFailing("list", "--remote", "--url", "https://")).code, 2);
  const plain = await accountsFailing("list", "--remote", "--url", API.replace("http:", "https:"));
  assert.equal(plain.code, 1);
  assert.match(plain.error.message, /did not answer over HTTPS/);
  // A command it cannot read: exit 2, and with --json still the error object.
  const unreadable = await accountsFailing("create");
  assert.equal(unreadable.code, 2);
  assert.deepEqual(unreadable.error, { code: "INVALID_COMMAND", message: "--name is required" });

  const tokens = await accounts("tokens", "list", "--account", created.account_id);
  assert.equal(tokens.account_id, created.account_id);
  assert.deepEqual(
    tokens.tokens.map((t: any) => t.token_id),
    [limited.token_id, second.token_id, created.token_id],
  );
  assert.deepEqual(
    tokens.tokens.map((t: any) => t.status),
    ["active", "active", "active"],
  );
  for (const secret of [created.token, second.token, limited.token])
    assert.ok(!JSON.stringify(tokens).includes(secret));

  const link = await accounts("sign-in-link", "--account", created.account_id);
  assert.match(link.url, new RegExp(`^${API}/dashboard/sign-in#code=[\\w-]{43}$`));
  assert.ok(Math.abs(Date.parse(link.expires_at) - Date.now() - 15 * 60_000) < 10_000);

  const revoked = await accounts("tokens", "revoke", "--token-id", second.token_id);
  assert.equal(revoked.token_id, second.token_id);
  assert.equal(revoked.revoked, true);
  assert.equal((await accounts("tokens", "list", "--account", created.account_id)).tokens[1].status, "revoked");
  await new Promise((r) => setTimeout(r, 10_500)); // the per-isolate token cache lives 10 s
  assert.equal((await api("GET", "/v1/candidates", second.token)).status, 401);
  assert.equal((await api("GET", "/v1/candidates", created.token)).status, 200);
});

test("50 accounts CLI calls in a row all succeed while the server serves 100 requests a second", async () => {
  const loadToken = (await accounts("create", "--name", "Smoke load")).token;
  // The load: 100 requests a second to the dev server on this machine, bounded in time and count.
  const RATE = 100;
  const MAX_MS = 55_000; // under the account's 6,000 requests a minute
  const statuses = new Map<number | string, number>();
  let sent = 0;
  let inFlight = 0;
  const began = Date.now();
  let loading = true;
  let firstCall = 0;
  const loop = (async () => {
    while (loading && Date.now() - began < MAX_MS && sent < (RATE * MAX_MS) / 1000) {
      const due = began + (sent * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      sent++;
      inFlight++;
      fetch(`${API}/v1/candidates?limit=10`, { headers: { Authorization: `Bearer ${loadToken}` } })
        .then(
          async (res) => (await res.arrayBuffer(), res.status),
          (error: Error) => error.message,
        )
        .then((status) => {
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          inFlight--;
        });
    }
  })();
  try {
    await new Promise((r) => setTimeout(r, 1000)); // the load is on before the first call
    firstCall = cliTimes.length;
    const account = (await accounts("create", "--name", "Smoke under load")).account_id;
    let key = (await accounts("tokens", "create", "--account", account)).token_id;
    for (let i = 2; i < 50; i++) {
      switch (i % 4) {
        case 0:
          assert.ok((await accounts("tokens", "list", "--account", account)).tokens.length > 0);
          break;
        case 1:
          assert.match((await accounts("sign-in-link", "--account", account)).url, /#code=/);
          break;
        case 2:
          assert.equal((await accounts("tokens", "revoke", "--token-id", key)).revoked, true);
          break;
        case 3:
          key = (await accounts("tokens", "create", "--account", account, "--permissions", "schemas:read")).token_id;
          break;
      }
    }
  } finally {
    loading = false;
    await loop;
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (Date.now() - began) / 1000;
  console.log(
    `load: ${sent} requests in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)}/s): ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  assert.deepEqual([...statuses.keys()], [200], "every load request succeeded");
  const underLoad = cliTimes
    .slice(firstCall)
    .map((t) => t.ms)
    .sort((a, b) => a - b);
  assert.equal(underLoad.length, 50);
  console.log(`under load: 50 calls, median ${underLoad[25]} ms, slowest ${underLoad[49]} ms`);
  assert.ok(sent / seconds > RATE * 0.9, `the load ran at ${(sent / seconds).toFixed(0)} requests a second`);
});

test("a restart keeps the data, the development token and windows still running", async () => {
  const before = await api("GET", `/v1/candidates/${alias}`, token);
  const shortAlias = `${alias}-short`;
  const short = await api("POST", "/v1/candidates", token, {
    customer_uuid: "cust_42",
    candidate_alias: shortAlias,
    contract: {
      price: 1,
      activity_window: 4,
      review_window: 2,
      fulfillment_condition: { event: "never" },
      timeout_outcome: "confirm",
    },
  });
  assert.equal(short.status, 201);
  await stopDev();
  const again = await startDev();
  assert.equal(again, token);
  const after = await api("GET", `/v1/candidates/${alias}`, token);
  assert.deepEqual(after.body, before.body);

  // The window that was running across the restart ends on time, exactly at its boundaries.
  const { activity_ends_at } = short.body;
  const reviewEnd = new Date(Date.parse(activity_ends_at) + 2000).toISOString();
  const wait = Date.parse(reviewEnd) - Date.now() + 200;
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const ended = await api("GET", `/v1/candidates/${shortAlias}`, token);
  assert.equal(ended.body.status, "CONFIRMED");
  assert.equal(ended.body.status_since, reviewEnd);
  const listed = await api("GET", "/v1/candidates?status=CONFIRMED", token);
  assert.ok(listed.body.data.some((c: any) => c.candidate_alias === shortAlias));
});

/**
 * Waits until `name` at the receiver has at least `count` deliveries about candidate `alias` (the
 * account's other candidates, from this run or earlier ones, may notify the endpoint too).
 */
async function deliveries(
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  name: string,
  alias: string,
  count: number,
  timeoutMs: number,
) {
  const about = () =>
    receiver.received(name).filter((d: Received) => JSON.parse(d.body).data.candidate.candidate_alias === alias);
  const deadline = Date.now() + timeoutMs;
  while (about().length < count) {
    if (Date.now() > deadline)
      throw new Error(`${name}: ${about().length} of ${count} deliveries about ${alias} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return about();
}

/** An account of its own for the webhook tests: no other candidate of it notifies its endpoints. */
let hooksToken = "";

test("webhooks reach a receiver on this machine, signed, and a failed attempt is retried", async () => {
  if (!dev.running) token = await startDev();
  hooksToken = (await accounts("create", "--name", "Smoke webhooks")).token;
  const hooks = hooksToken;
  const receiver = await startReceiver();
  try {
    // The receiver fails the first delivery; later ones succeed.
    const endpoint = await api("POST", "/v1/webhook_endpoints", hooks, { url: `${receiver.url}/smoke/500,200` });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const hooked = `${alias}-hooks`;
    const contract = {
      price: 5,
      activity_window: 600,
      review_window: 3,
      fulfillment_condition: { event: "purchase" },
      timeout_outcome: "fail",
    };
    assert.equal(
      (await api("POST", "/v1/candidates", hooks, { customer_uuid: "cust_42", candidate_alias: hooked, contract }))
        .status,
      201,
    );
    const hit = await api("POST", "/v1/events", hooks, { candidate_alias: hooked, type: "purchase" });
    assert.equal(hit.body.candidate.status, "PENDING");

    // candidate.pending (failed, then retried after 5 s) and candidate.confirmed (3 s later).
    const received = await deliveries(receiver, "smoke", hooked, 3, 60_000);
    const webhook = new Webhook(endpoint.body.secret);
    const verified = received.map((d) => webhook.verify(d.body, d.headers) as { id: string; type: string; data: any });
    const pending = verified.filter((n) => n.type === "candidate.pending");
    const confirmed = verified.filter((n) => n.type === "candidate.confirmed");
    assert.equal(pending.length, 2, "the pending notification, delivered twice");
    assert.equal(pending[0].id, pending[1].id);
    assert.equal(pending[0].data.cause.event_id, hit.body.event.id);
    assert.equal(confirmed.length, 1);
    assert.equal(confirmed[0].data.candidate.status, "CONFIRMED");

    const log = await api("GET", `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`, hooks);
    const attempts = log.body.data
      .filter((a: any) => a.notification_id === pending[0].id)
      .map((a: any) => [a.attempt, a.status, a.response_status]);
    assert.deepEqual(attempts, [
      [2, "succeeded", 200],
      [1, "failed", 500],
    ]);
    const feed = await api("GET", `/v1/notifications?candidate_alias=${hooked}`, hooks);
    assert.deepEqual(
      feed.body.data.map((n: any) => n.id),
      [pending[0].id, confirmed[0].id],
    );
  } finally {
    await receiver.close();
  }
});

test("a window that ends while the dev server is down is notified once it is back", async () => {
  if (!dev.running) token = await startDev();
  const devToken = token;
  const hooks = hooksToken;
  const receiver = await startReceiver();
  try {
    const endpoint = await api("POST", "/v1/webhook_endpoints", hooks, {
      url: `${receiver.url}/restart/200`,
      enabled_events: ["candidate.pending"],
    });
    const later = `${alias}-while-down`;
    const contract = {
      price: 5,
      activity_window: 3,
      review_window: 600,
      fulfillment_condition: { event: "never" },
      timeout_outcome: "confirm",
    };
    const created = await api("POST", "/v1/candidates", hooks, {
      customer_uuid: "cust_42",
      candidate_alias: later,
      contract,
    });
    await stopDev();
    // Down when the activity window ends, and past the sweep's grace before coming back.
    const ended = Date.parse(created.body.activity_ends_at);
    await new Promise((r) => setTimeout(r, Math.max(0, ended + 11_000 - Date.now())));
    assert.equal(await startDev(), devToken);
    const [delivery] = await deliveries(receiver, "restart", later, 1, 90_000);
    const notification = new Webhook(endpoint.body.secret).verify(delivery.body, delivery.headers) as any;
    assert.equal(notification.type, "candidate.pending");
    assert.equal(notification.timestamp, created.body.activity_ends_at);
    assert.deepEqual(notification.data.cause, { kind: "activity_window_ended" });
  } finally {
    await receiver.close();
  }
});

test("npm run dev stops everything it started on SIGTERM or SIGINT to its pid", async () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    if (!dev.running) await startDev();
    await stopDev(signal);
    assert.equal(dev.running, false);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await dev.leftovers(), [], `processes left after ${signal}`);
    await assert.rejects(fetch(`${API}/v1/openapi.json`), `the port is still served after ${signal}`);
  }
  // And the next start finds the port free.
  assert.match(await startDev(), /^cct_/);
});

test("with no dev server running, the accounts CLI works on the local database", async () => {
  await stopDev();
  // A dev server killed outright leaves its file, and its pid may go to another process (here,
  // this one): the CLI must see that no server runs, not wait on a closed port and fail.
  writeFileSync(".wrangler/dev-server.json", JSON.stringify({ pid: process.pid, origin: API }));
  try {
    assert.ok(Array.isArray((await accounts("list")).accounts));
  } finally {
    rmSync(".wrangler/dev-server.json", { force: true });
  }
  const created = await accounts("create", "--name", "Smoke offline");
  const key = await accounts(
    "tokens",
    "create",
    "--account",
    created.account_id,
    "--name",
    "offline",
    "--permissions",
    "schemas:read",
  );
  assert.deepEqual(key.permissions, ["schemas:read"]);
  assert.ok((await accounts("list")).accounts.some((a: any) => a.account_id === created.account_id));
  assert.match(
    (await accounts("sign-in-link", "--account", created.account_id)).url,
    /^http:\/\/localhost:8787\/dashboard\/sign-in#code=[\w-]{43}$/,
  );
  assert.equal((await accounts("tokens", "revoke", "--token-id", created.token_id)).revoked, true);
  const tokens = (await accounts("tokens", "list", "--account", created.account_id)).tokens;
  assert.deepEqual(
    tokens.map((t: any) => [t.token_id, t.status]),
    [
      [key.token_id, "active"],
      [created.token_id, "revoked"],
    ],
  );
  // Written where the server reads: once it is back, the key made offline works and the revoked one does not.
  assert.match(await startDev(), /^cct_/);
  assert.equal((await api("GET", "/v1/schemas", key.token)).status, 200);
  assert.equal((await api("GET", "/v1/schemas", created.token)).status, 401);
});
