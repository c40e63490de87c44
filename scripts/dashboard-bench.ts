/// <reference lib="dom" />
/**
 * `npm run bench:dashboard`: the dashboard's candidates page of an account with 10,000 candidates
 * against the API's own list page, in Chromium, under `npm run dev`.
 *
 * The account ("Bench: 10,000 candidates") is made in the local development database with the
 * accounts CLI (no server running: it applies the migrations first) and its candidates' index rows
 * written straight into its shard's database file (lib/seed-index.ts over lib/local-d1.ts), all
 * in one transaction. It stays there: later runs find it and reuse it, so the database does not grow.
 * Its rows are all final (CONFIRMED or FAILED), so the sweep never has anything to wake.
 *
 * Then `npm run dev` (lib/dev-server.ts), one sign-in link per round from the accounts CLI, and
 * Chromium (Debian's `chromium`, or CHROMIUM_PATH) through playwright-core. Each round, after
 * BENCH_WARMUPS (3) discarded, BENCH_ROUNDS (20) measured, all in the page's own clock
 * (`performance.now()`, whose origin is the navigation's start):
 *   (a) the dashboard: navigation to /dashboard/candidates until its table holds 50 rows (a
 *       MutationObserver installed before the page's own scripts notes the moment);
 *   (b) the API's list page: navigation to /v1/candidates?limit=50 (the session cookie
 *       authenticates it; Chromium shows the JSON) until its load event has ended;
 *   (c) for reference, `fetch` of that same URL from the dashboard's page, its body read;
 *   (d) the first page interactive: a sign-in link opened in a fresh browser context (nothing
 *       cached, no cookie) until the overview's h1 is in the page; then signed out.
 * (a) and (b) alternate which goes first. The same moments seen from Node (around page.goto and
 * the wait) are kept beside them: those add the driver's round trips. Prints a table and writes
 * bench/dashboard.json. Nothing here passes or fails on a timing.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { DevServer } from "./lib/dev-server.ts";
import { launchChromium } from "./lib/chromium.ts";
import { openLocalD1 } from "./lib/local-d1.ts";
import { PRIMARY } from "../src/shards.ts";
import { runningDevServer } from "./lib/local-dev.ts";
import { seedIndex, SETTLED_MIX } from "./lib/seed-index.ts";

const ACCOUNT_NAME = "Bench: 10,000 candidates";
const CANDIDATES = 10_000;
const ROWS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WARMUPS = Number(process.env.BENCH_WARMUPS ?? 3);
const VIEWPORT = { width: 1280, height: 900 };
const API_PATH = `/v1/candidates?limit=${ROWS}`;
const RESULTS = "bench/dashboard.json";

const run = promisify(execFile);

/** The accounts CLI, as the README shows it: the local database itself, or the running `npm run dev`. */
async function accounts(...args: string[]): Promise<any> {
  const { stdout } = await run("npm", ["run", "-s", "accounts", "--", ...args, "--json"]);
  return JSON.parse(stdout);
}

// ---- the account ---------------------------------------------------------------------------------

/** The bench account's id: the one a previous run left, else made and seeded now. */
async function benchAccount(): Promise<{ id: string; reused: boolean }> {
  if (runningDevServer()) {
    throw new Error(
      "npm run dev is running in this checkout: stop it first (the bench writes the local database directly, then starts its own).",
    );
  }
  // With no server running, the CLI works on the local database file, migrating it first if behind.
  const { accounts: all } = (await accounts("list")) as { accounts: { account_id: string; name: string }[] };
  const named = all.filter((a) => a.name === ACCOUNT_NAME).map((a) => a.account_id);
  const counts = new Map<string, number>();
  for (const id of named) {
    await withAccountDb(id, async (db) => {
      counts.set(
        id,
        (await db.prepare(`SELECT COUNT(*) AS n FROM candidates WHERE account_id = ?`).bind(id).first<number>("n"))!,
      );
    });
  }
  const ready = named.find((id) => counts.get(id) === CANDIDATES);
  if (ready) return { id: ready, reused: true };
  // Seeding is all or nothing, so an account of this name either has them all or (a run stopped
  // between making it and seeding it) none; one with some other count is not the bench's.
  const id =
    named.find((id) => counts.get(id) === 0) ??
    ((await accounts("create", "--name", ACCOUNT_NAME)) as { account_id: string }).account_id;
  const started = performance.now();
  await withAccountDb(id, async (db) => {
    // seedIndex writes in batches of 500; collected here, they go in as one batch: one transaction.
    const statements: D1PreparedStatement[] = [];
    const collect = {
      prepare: (sql: string) => db.prepare(sql),
      batch: async (s: D1PreparedStatement[]) => void statements.push(...s),
    };
    await seedIndex(collect as unknown as D1Database, id, CANDIDATES, SETTLED_MIX);
    await db.batch(statements);
  });
  console.log(
    `seeded ${CANDIDATES.toLocaleString("en")} candidates in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { id, reused: false };
}

async function withLocalDb(binding: string, work: (db: D1Database) => Promise<void>) {
  const opened = await openLocalD1(binding);
  if (!opened) throw new Error(`the local database ${binding} is missing after the accounts CLI ran`);
  try {
    await work(opened.db);
  } finally {
    opened.close();
  }
}

/** The local database holding the account's candidates: its shard's, as the primary records it. */
async function withAccountDb(accountId: string, work: (db: D1Database) => Promise<void>) {
  let shard: string = PRIMARY;
  await withLocalDb(PRIMARY, async (db) => {
    shard =
      (await db.prepare(`SELECT shard FROM accounts WHERE id = ?`).bind(accountId).first<string>("shard")) ?? PRIMARY;
  });
  await withLocalDb(shard, work);
}

// ---- measuring -----------------------------------------------------------------------------------

/**
 * Installed in every document before its own scripts: notes, on the page's clock, when the table
 * first holds 50 rows and when the overview's h1 first shows. (Run by the browser's debugger, which
 * the dashboard's Content-Security-Policy does not govern.)
 */
function probe(rows: number) {
  const marks: { rows?: number; overview?: number } = {};
  (window as unknown as { __bench: typeof marks }).__bench = marks;
  const observer = new MutationObserver(() => {
    if (marks.rows === undefined && document.querySelectorAll("tbody tr").length >= rows)
      marks.rows = performance.now();
    if (marks.overview === undefined && document.querySelector("main h1")?.textContent === "Overview")
      marks.overview = performance.now();
    if (marks.rows !== undefined && marks.overview !== undefined) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
}

type Mark = "rows" | "overview";
const marked = (page: Page, mark: Mark) =>
  page.waitForFunction(
    (m) => (window as unknown as { __bench?: Record<string, number> }).__bench?.[m] !== undefined,
    mark,
    { timeout: 15_000 },
  );
const markAt = (page: Page, mark: Mark) =>
  page.evaluate((m) => (window as unknown as { __bench: Record<string, number> }).__bench[m], mark);

interface Timed {
  /** On the page's clock, from the navigation's start. */
  page_ms: number;
  /** From Node, around the driver's calls. */
  node_ms: number;
}

/** Moments of one load of the dashboard's candidates page, on its clock (ms from the navigation's start). */
interface DashboardMoments {
  html_received: number;
  scripts_run: number;
  session_read_start: number;
  session_read_end: number;
  list_read_start: number;
  list_read_end: number;
  rows: number;
}

async function dashboardPage(page: Page, origin: string): Promise<Timed & { moments: DashboardMoments }> {
  const started = performance.now();
  await page.goto(`${origin}/dashboard/candidates`, { waitUntil: "commit" });
  await marked(page, "rows");
  const node_ms = performance.now() - started;
  const moments = await page.evaluate((rows) => {
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    const read = (path: string) => {
      const entry = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).find(
        (e) => new URL(e.name).pathname === path,
      );
      return entry ? [entry.startTime, entry.responseEnd] : [NaN, NaN];
    };
    const [session_read_start, session_read_end] = read("/dashboard/session");
    const [list_read_start, list_read_end] = read("/v1/candidates");
    const shown = document.querySelectorAll("tbody tr").length;
    if (shown !== rows) throw new Error(`the table holds ${shown} rows, not ${rows}`);
    return {
      html_received: nav.responseEnd,
      scripts_run: nav.domContentLoadedEventEnd,
      session_read_start,
      session_read_end,
      list_read_start,
      list_read_end,
      rows: (window as unknown as { __bench: { rows: number } }).__bench.rows,
    };
  }, ROWS);
  return { page_ms: moments.rows, node_ms, moments };
}

async function apiPage(page: Page, origin: string): Promise<Timed> {
  const started = performance.now();
  const response = await page.goto(`${origin}${API_PATH}`, { waitUntil: "load" });
  const node_ms = performance.now() - started;
  if (response?.status() !== 200) throw new Error(`GET ${API_PATH}: ${response?.status()}`);
  const loaded = await page.waitForFunction(
    () => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd || undefined,
  );
  return { page_ms: (await loaded.jsonValue()) as number, node_ms };
}

async function bareFetch(page: Page): Promise<Timed> {
  const started = performance.now();
  const page_ms = await page.evaluate(async (path) => {
    const start = performance.now();
    const res = await fetch(path, { cache: "no-store" });
    const body = (await res.json()) as { data: unknown[] };
    if (res.status !== 200 || body.data.length === 0) throw new Error(`fetch ${path}: ${res.status}`);
    return performance.now() - start;
  }, API_PATH);
  return { page_ms, node_ms: performance.now() - started };
}

/** Ends the page's session, rather than leave it open in the database for 12 hours. */
async function signOut(page: Page) {
  const status = await page.evaluate(() => fetch("/dashboard/session", { method: "DELETE" }).then((r) => r.status));
  if (status >= 300) throw new Error(`sign-out: ${status}`);
}

/** A sign-in link in a fresh context (nothing cached, no cookie) until the overview's h1; signed out after. */
async function firstPage(browser: Browser, link: string): Promise<Timed> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    await context.addInitScript(probe, ROWS);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(link, { waitUntil: "commit" });
    await marked(page, "overview");
    const node_ms = performance.now() - started;
    const page_ms = await markAt(page, "overview");
    await signOut(page);
    return { page_ms, node_ms };
  } finally {
    await context.close();
  }
}

// ---- figures -------------------------------------------------------------------------------------

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => {
  const s = sorted(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
/** Nearest rank. */
const p90 = (xs: number[]) => sorted(xs)[Math.ceil(0.9 * xs.length) - 1];
const round1 = (x: number) => Math.round(x * 10) / 10;

function figure(samples: Timed[]) {
  const page = samples.map((s) => s.page_ms);
  const node = samples.map((s) => s.node_ms);
  return {
    median_ms: round1(median(page)),
    p90_ms: round1(p90(page)),
    node_median_ms: round1(median(node)),
    node_p90_ms: round1(p90(node)),
    samples_ms: page.map(round1),
  };
}

// ---- the run -------------------------------------------------------------------------------------

async function main() {
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30) };
  console.log(`machine: ${machine.cpus} × ${machine.model}, ${machine.memory_gib} GiB; node ${process.version}`);

  const account = await benchAccount();
  console.log(
    `account ${account.id} ("${ACCOUNT_NAME}", ${CANDIDATES.toLocaleString("en")} candidates): ${account.reused ? "reused from an earlier run" : "made now"}; ` +
      "it stays in the local development database for the next run",
  );

  const dev = new DevServer();
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close().catch(() => {});
    await dev.cleanUp();
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  try {
    console.log("starting npm run dev…");
    await dev.start();
    const origin = dev.url;
    // Every link now, so making one (a Node process) never runs beside a measurement. Each works
    // once, within 15 minutes: the rounds take a minute or two.
    const links: string[] = [];
    for (let i = 0; i <= WARMUPS + ROUNDS; i++)
      links.push(((await accounts("sign-in-link", "--account", account.id)) as { url: string }).url);

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.addInitScript(probe, ROWS);
    const page = await context.newPage();
    await page.goto(links.pop()!);
    await marked(page, "overview");

    // What is measured is what it should be: 50 of this account's candidates, and more after them.
    const check = await page.goto(`${origin}${API_PATH}`);
    const body = (await check!.json()) as { data: { candidate_alias: string }[]; next_cursor: string | null };
    if (
      body.data.length !== ROWS ||
      !body.next_cursor ||
      !body.data.every((c) => c.candidate_alias.startsWith(`seed-${account.id}-`))
    ) {
      throw new Error(`GET ${API_PATH} did not answer ${ROWS} of the bench account's candidates with more to follow`);
    }

    const dashboard: Timed[] = [];
    const api: Timed[] = [];
    const fetched: Timed[] = [];
    const interactive: Timed[] = [];
    const moments: DashboardMoments[] = [];
    for (let round = 0; round < WARMUPS + ROUNDS; round++) {
      const measured = round >= WARMUPS;
      process.stdout.write(measured ? `round ${round - WARMUPS + 1}/${ROUNDS}\r` : `warm-up ${round + 1}/${WARMUPS}\r`);
      const a = async () => {
        const d = await dashboardPage(page, origin);
        // From the dashboard's page, as its own read goes.
        const f = await bareFetch(page);
        if (!measured) return;
        dashboard.push(d);
        moments.push(d.moments);
        fetched.push(f);
      };
      const b = async () => {
        const t = await apiPage(page, origin);
        if (measured) api.push(t);
      };
      for (const step of round % 2 === 0 ? [a, b] : [b, a]) await step();
      const t = await firstPage(browser, links.pop()!);
      if (measured) interactive.push(t);
    }
    process.stdout.write("\n");
    await signOut(page);

    const results = {
      date: new Date().toISOString(),
      machine,
      browser: `Chromium ${browser.version()} (headless, playwright-core)`,
      server: "npm run dev (wrangler dev: local D1 and Durable Objects, Miniflare's limiter and assets router)",
      account: { name: ACCOUNT_NAME, candidates: CANDIDATES, kept_in_local_database: true },
      rounds: ROUNDS,
      warmups: WARMUPS,
      clock:
        "the page's performance.now(), from the navigation's start; node_* from Node around page.goto and the wait, for comparison",
      dashboard_candidates_page: {
        what: `navigation to /dashboard/candidates until its table holds ${ROWS} rows`,
        ...figure(dashboard),
      },
      api_list_page: { what: `navigation to ${API_PATH} (session cookie) until its load event ended`, ...figure(api) },
      api_fetch: { what: `fetch of ${API_PATH} from the dashboard's page, body read`, ...figure(fetched) },
      first_page_interactive: {
        what: "a sign-in link in a fresh browser context until the overview's h1",
        aim_ms: 1000,
        ...figure(interactive),
      },
      dashboard_vs_api_list_page: Number(
        (median(dashboard.map((d) => d.page_ms)) / median(api.map((d) => d.page_ms))).toFixed(2),
      ),
      dashboard_vs_api_list_page_per_round_median: Number(
        median(dashboard.map((d, i) => d.page_ms / api[i].page_ms)).toFixed(2),
      ),
      /** Where the dashboard page's time goes: the median of each moment, ms from the navigation's start. */
      dashboard_moments_median_ms: Object.fromEntries(
        Object.keys(moments[0]).map((k) => [k, round1(median(moments.map((m) => m[k as keyof DashboardMoments])))]),
      ),
    };
    report(results);
    writeFileSync(RESULTS, JSON.stringify(results, null, 2) + "\n");
    console.log(
      `\nwritten to ${RESULTS}; the account "${ACCOUNT_NAME}" (${account.id}) stays in the local database (.wrangler/) for the next run`,
    );
  } finally {
    await stop();
  }
}

function report(r: {
  dashboard_candidates_page: ReturnType<typeof figure> & { what: string };
  api_list_page: ReturnType<typeof figure> & { what: string };
  api_fetch: ReturnType<typeof figure> & { what: string };
  first_page_interactive: ReturnType<typeof figure> & { what: string };
  dashboard_vs_api_list_page: number;
  dashboard_vs_api_list_page_per_round_median: number;
  dashboard_moments_median_ms: Record<string, number>;
}) {
  console.log(
    `\n| measure (${ROUNDS} rounds, after ${WARMUPS} warm-ups) | median ms | p90 ms | from Node: median | p90 |`,
  );
  console.log("|---|---|---|---|---|");
  for (const f of [r.dashboard_candidates_page, r.api_list_page, r.api_fetch, r.first_page_interactive]) {
    console.log(`| ${f.what} | ${f.median_ms} | ${f.p90_ms} | ${f.node_median_ms} | ${f.node_p90_ms} |`);
  }
  console.log(
    `\nthe dashboard's candidates page takes ${r.dashboard_vs_api_list_page} times the API's list page ` +
      `(median of the per-round ratios: ${r.dashboard_vs_api_list_page_per_round_median})`,
  );
  console.log(
    `first page interactive: median ${r.first_page_interactive.median_ms} ms, p90 ${r.first_page_interactive.p90_ms} ms (the aim: within 1,000 ms)`,
  );
  console.log(
    `the dashboard's page, median moments (ms from the navigation's start): ${Object.entries(
      r.dashboard_moments_median_ms,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
