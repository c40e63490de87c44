/**
 * Smoke run of the service as a new user meets it: `npm run dev` from the README, the printed
 * token, the curl walk-through, the accounts CLI, and a restart that keeps every candidate and its
 * pending window end. Run with `npm run smoke` (node's test runner); it uses its own port.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import assert from "node:assert/strict";
import { after, test } from "node:test";

const run = promisify(execFile);
const PORT = 8700 + Math.floor(Math.random() * 80);
const API = `http://127.0.0.1:${PORT}`;
let server: { child: ChildProcess; output: () => string } | undefined;

async function startDev() {
  // As a process manager or a test harness starts it: no process group of its own.
  const child = spawn("npm", ["run", "dev", "--", "--port", String(PORT), "--ip", "127.0.0.1"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (!/Ready on/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm run dev did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  server = { child, output: () => output };
  return output.match(/export TOKEN=(cct_\S+)/)![1];
}

/** Processes still serving our port: wrangler and workerd name it on their command lines. */
async function leftovers(): Promise<string[]> {
  const { stdout } = await run("ps", ["-eo", "pid,args"]);
  return stdout.split("\n").filter((line) => line.includes(`--port ${PORT}`) || line.includes(`127.0.0.1:${PORT}`));
}

/** Stops `npm run dev` as a process manager would: one signal to the pid it started. */
async function stopDev(signal: NodeJS.Signals = "SIGTERM") {
  if (!server) return;
  const { child } = server;
  server = undefined;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
}

after(async () => {
  await stopDev();
  for (const line of await leftovers()) process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
});

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function accounts(...args: string[]) {
  const { stdout } = await run("npm", ["run", "-s", "accounts", "--", ...args, "--json"]);
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

const alias = `smoke-${Date.now()}`;
let token = "";

test("npm run dev starts and prints a usable token", async () => {
  token = await startDev();
  assert.match(token, /^cct_[\w-]{43}$/);
  assert.equal((await api("GET", "/v1/schemas", token)).status, 200);
  const anonymous = await fetch(`${API}/v1/schemas`);
  assert.equal(anonymous.status, 401);
});

test("the README walk-through works", async () => {
  const schema = await api("POST", "/v1/schemas", token, {
    contract: {
      price: 49.5,
      activity_window: 604800,
      review_window: 86400,
      fulfillment_condition: { event: "purchase", field: "total", gte: 100 },
      timeout_outcome: "fail",
    },
  });
  assert.equal(schema.status, 201);
  const created = await api("POST", "/v1/candidates", token, { customer_uuid: "cust_42", candidate_alias: alias });
  assert.equal(created.status, 201);
  assert.equal(created.body.schema_id, schema.body.id);
  const miss = await api("POST", "/v1/events", token, { candidate_alias: alias, type: "purchase", value: { total: 80 } });
  assert.equal(miss.body.candidate.status, "OPEN");
  const hit = await api("POST", "/v1/events", token, { candidate_alias: alias, type: "purchase", value: { total: 120 } });
  assert.equal(hit.body.candidate.status, "PENDING");
  assert.equal(hit.body.candidate.scheduled_outcome, "CONFIRMED");
  const read = await api("GET", `/v1/candidates/${alias}`, token);
  assert.equal(read.body.events.length, 2);
  const list = await api("GET", "/v1/candidates?status=PENDING&limit=10", token);
  assert.equal(list.body.data[0].candidate_alias, alias); // newest first (earlier runs may have left others)
});

test("the accounts CLI creates, lists and revokes tokens while the server runs", async () => {
  const created = await accounts("create", "--name", "Smoke");
  assert.match(created.token, /^cct_/);
  assert.equal((await api("GET", "/v1/schemas", created.token)).status, 200);
  const second = await accounts("tokens", "create", "--account", created.account_id);
  assert.equal((await api("GET", "/v1/candidates", second.token)).status, 200);
  const listed = await accounts("tokens", "list", "--account", created.account_id);
  assert.deepEqual(listed.tokens.map((t: any) => t.token_id).sort(), [created.token_id, second.token_id].sort());
  assert.ok(!JSON.stringify(listed).includes(created.token));
  await accounts("tokens", "revoke", "--token-id", second.token_id);
  await new Promise((r) => setTimeout(r, 10_500)); // the per-isolate token cache lives 10 s
  assert.equal((await api("GET", "/v1/candidates", second.token)).status, 401);
  assert.equal((await api("GET", "/v1/candidates", created.token)).status, 200);
});

test("a restart keeps the data, the development token and windows still running", async () => {
  const before = await api("GET", `/v1/candidates/${alias}`, token);
  const shortAlias = `${alias}-short`;
  const short = await api("POST", "/v1/candidates", token, {
    customer_uuid: "cust_42",
    candidate_alias: shortAlias,
    contract: { price: 1, activity_window: 4, review_window: 2, fulfillment_condition: { event: "never" }, timeout_outcome: "confirm" },
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

test("npm run dev stops everything it started on SIGTERM or SIGINT to its pid", async () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    if (!server) await startDev();
    const pid = server!.child.pid;
    await stopDev(signal);
    assert.equal(server, undefined);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await leftovers(), [], `processes left after ${signal} to ${pid}`);
    await assert.rejects(fetch(`${API}/v1/openapi.json`), `the port is still served after ${signal}`);
  }
  // And the next start finds the port free.
  assert.match(await startDev(), /^cct_/);
});
