/// <reference lib="dom" />
/**
 * `npm run test:dashboard`: the dashboard in a real browser, as a person uses it. Starts `npm run
 * dev`, makes a fresh account with the accounts CLI (so every run starts empty) and opens its
 * sign-in link in Chromium (Debian's `chromium`, driven by playwright-core; CHROMIUM_PATH for
 * another). Then, through the pages only: a schema (one invalid try first, its error at the
 * field), a candidate, events, the timeline with the matched events and the lit leaves, a webhook
 * endpoint at a local receiver, a test send and its answer, a resend and its delivery, the month's
 * billing amount, a key that may only send events (refused elsewhere, then revoked), and sign-out.
 * A second walk tries the edges: the soonest of more than a page of candidates about to time out,
 * a link pasted after a refused one, a list's page kept in the address through reload and Back, a
 * filter the form refuses in its own words, focus as forms open and close (Escape too), a void
 * refused because another tab voided first, another tab signing in to another account, Back after
 * sign-out, and a key that may create candidates but not list schemas.
 * Every page it passes holds scripts/lib/page-checks.ts (console, origin, axe-core, keyboard,
 * screenshots at 1280 and 390 px in test/artifacts/dashboard/).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { DevServer } from "./lib/dev-server.ts";
import { launchChromium } from "./lib/chromium.ts";
import { PageWatch } from "./lib/page-checks.ts";
import { startReceiver, type Receiver } from "./lib/webhook-receiver.ts";

const run = promisify(execFile);
const dev = new DevServer();
let browser: Browser | undefined;
let receiver: Receiver | undefined;

before(async () => {
  browser = await launchChromium();
  await dev.start();
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await dev.cleanUp();
  // What the service logged (a 500's cause among it), kept beside the screenshots.
  mkdirSync("test/artifacts/dashboard", { recursive: true });
  writeFileSync("test/artifacts/dashboard/dev-server.log", dev.output);
});

/** The accounts CLI against the running dev server, as the README shows it. */
async function accounts(...args: string[]): Promise<any> {
  const { stdout } = await run("npm", ["run", "-s", "accounts", "--", ...args, "--json"]);
  return JSON.parse(stdout);
}

/** Waits until `check` holds (the service's queue and alarms run on their own time), or fails saying what. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true }).click();
const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor();

test("a person's journey through the dashboard", async () => {
  receiver = await startReceiver();
  const stamp = Date.now().toString(36);
  // A name, and below a customer, with no space to break at: the header and tables must wrap them.
  const account = await accounts("create", "--name", `Dashboard journey ${stamp} ${"N".repeat(120)}`);
  const link = await accounts("sign-in-link", "--account", account.account_id);

  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: dev.url });
  const page = await context.newPage();
  const watch = new PageWatch(page, dev.url);
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  // Sign in with the one-time link: the overview, empty, says what to do first.
  const started = performance.now();
  await page.goto(link.url);
  await heading(page, "Overview");
  const interactiveMs = performance.now() - started;
  assert.equal(new URL(page.url()).hash, "", "the link's code leaves the address at once");
  await watch.check("overview-empty");

  // A schema: an invalid try shows the API's error at its field, then a valid one.
  await nav(page, "Schemas");
  await heading(page, "Schemas");
  await watch.check("schemas-empty");
  await page.getByRole("button", { name: "New schema" }).first().click();
  await page.getByLabel("Name (optional)").fill("Journey: signup, then a purchase of 100 or more");
  // What the form itself finds is said all at once, each at its field: a price that is no number, and JSON that is not.
  await page.getByLabel("Price").fill("abc");
  await page.getByLabel("Fulfillment condition (JSON)").fill("{");
  await page.getByRole("button", { name: "Create schema" }).click();
  await page
    .getByRole("alert")
    .filter({ hasText: /\d problems, shown at the fields above/ })
    .waitFor();
  const fieldError = (label: string) =>
    page.locator(".field.invalid", { has: page.getByLabel(label) }).locator(".field-error");
  await fieldError("Price").filter({ hasText: "Enter an amount as a number" }).waitFor();
  await fieldError("Fulfillment condition (JSON)").filter({ hasText: "This is not valid JSON" }).waitFor();
  await page.getByLabel("Price").fill("-1");
  await page.getByLabel("Activity window (seconds)").fill("3600");
  await page.getByLabel("Review window (seconds)").fill("0");
  await page
    .getByLabel("Fulfillment condition (JSON)")
    .fill(JSON.stringify({ all: [{ event: "signup" }, { event: "purchase", field: "total", gte: 100 }] }, null, 2));
  await page.getByRole("button", { name: "Create schema" }).click();
  const priceError = page.locator(".field.invalid", { has: page.getByLabel("Price") }).locator(".field-error");
  await priceError.waitFor();
  assert.match(await priceError.innerText(), /at least 0/, "the price's error is shown at the price");
  assert.equal(await page.getByLabel("Price").getAttribute("aria-invalid"), "true");
  await watch.check("schemas-invalid");
  // A number is sent as typed: the API refuses one a float would change, never the form rounding it.
  await page.getByLabel("Price").fill("49.999999999999999999");
  await page.getByRole("button", { name: "Create schema" }).click();
  await priceError.filter({ hasText: "which would store 50" }).waitFor();
  assert.match(await priceError.innerText(), /which would store 50/, "the price is refused as typed, not rounded");
  await page.getByLabel("Price").fill("49.5");
  await page.getByRole("button", { name: "Create schema" }).click();
  await page.getByRole("cell", { name: "Journey: signup, then a purchase of 100 or more" }).first().waitFor();
  await watch.check("schemas");

  // A candidate from it, then events sent from its page.
  const alias = `journey-${stamp}-0001`;
  const customer = `journey-customer-${stamp}-${"c".repeat(200)}`;
  await nav(page, "Candidates");
  await heading(page, "Candidates");
  await page.getByRole("button", { name: "New candidate" }).first().click();
  const form = page.getByRole("form", { name: "New candidate" });
  await form.getByLabel("Alias").fill(alias);
  await form.getByLabel("Customer").fill(customer);
  await form.getByLabel("Metadata (optional)").fill("order_id=ord_journey");
  await form.getByRole("button", { name: "Create candidate" }).click();
  await heading(page, alias);
  // An event value just under the condition's 100 stays under it: refused as typed, not sent as 100.
  await page.getByLabel("Type", { exact: true }).fill("purchase");
  await page.getByLabel("Value (JSON, optional)").fill('{"total": 99.99999999999999999}');
  await page.getByRole("button", { name: "Send event" }).click();
  const valueError = page.locator(".field.invalid", { has: page.getByLabel("Value (JSON, optional)") });
  await valueError.locator(".field-error").filter({ hasText: "which would store 100" }).waitFor();
  await watch.check("candidate-value-refused");
  for (const [type, value] of [
    ["signup", ""],
    ["purchase", '{"total": 50}'],
    ["purchase", '{"total": 120}'],
  ]) {
    await page.getByLabel("Type", { exact: true }).fill(type);
    await page.getByLabel("Value (JSON, optional)").fill(value);
    await page.getByRole("button", { name: "Send event" }).click();
    await page.getByRole("status").filter({ hasText: "Recorded" }).waitFor();
    await page.getByRole("button", { name: "Reload" }).waitFor();
  }
  // Metadata: a new key without a value is refused before anything is sent, and said; with one it
  // is saved, the form made anew from the answer, the focus on the panel's heading and "Saved" said.
  await page.getByLabel("New key").fill("region");
  await page.getByRole("button", { name: "Save metadata" }).click();
  await page.getByRole("alert").filter({ hasText: "One problem, shown at the fields above." }).waitFor();
  await page.getByText("needs a value (a key set to nothing is removed)").waitFor();
  await page.getByLabel("Its value").fill("eu");
  await page.getByRole("button", { name: "Save metadata" }).click();
  await page.getByRole("status").filter({ hasText: "Saved at" }).waitFor();
  await page.getByLabel("region").waitFor();
  await page.waitForFunction(() => document.activeElement?.id === "h-metadata");
  // The key is isolated from the words around it (<bdi>) without characters in the button's name.
  await page.getByRole("button", { name: "Remove region", exact: true }).waitFor();
  // Review window 0: the fulfilling purchase made it CONFIRMED at once, as the API says.
  await page.locator(".page-head .badge", { hasText: "CONFIRMED" }).waitFor();
  const timeline = page.getByRole("img", { name: /timeline/i }).first();
  await timeline.waitFor();
  assert.equal(await timeline.locator(".tl-matched").count(), 2, "the two matching events are marked on the timeline");
  assert.equal(await timeline.locator(".tl-lit").count(), 2, "both leaves of the condition are lit");
  await watch.check("candidate");
  // The README's picture of the dashboard: this page as a 1280 × 800 window shows it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({
    path: "test/artifacts/dashboard/readme.png",
    clip: { x: 0, y: 0, width: 1280, height: 800 },
  });
  // A key as long as the API allows, of wide letters and no break: it wraps, the page keeps its width.
  const wideKey = "W".repeat(40);
  await page.getByLabel("New key").fill(wideKey);
  await page.getByLabel("Its value").fill("wide");
  await page.getByRole("button", { name: "Save metadata" }).click();
  await page.getByLabel(wideKey, { exact: true }).waitFor();
  // A value longer than the API takes: its refusal is shown at the value, not at the key.
  await page.getByLabel("New key").fill("big");
  await page.getByLabel("Its value").fill("v".repeat(501));
  await page.getByRole("button", { name: "Save metadata" }).click();
  await page.getByText("must be a string of at most 500 characters").waitFor();
  assert.equal(await page.getByLabel("Its value").getAttribute("aria-invalid"), "true", "the value is marked");
  assert.equal(await page.getByLabel("New key").getAttribute("aria-invalid"), null, "the key is not");
  // A key named __proto__, which the API takes as any other, is sent and saved as any other.
  await page.getByLabel("New key").fill("__proto__");
  await page.getByLabel("Its value").fill("p");
  await page.getByRole("button", { name: "Save metadata" }).click();
  await page.getByLabel("__proto__", { exact: true }).waitFor();
  // So do an event type as long as the API allows and a long value: the events table keeps every column in view.
  await page.getByLabel("Type", { exact: true }).fill("W".repeat(255));
  await page.getByLabel("Value (JSON, optional)").fill(JSON.stringify({ note: "W".repeat(300) }));
  await page.getByRole("button", { name: "Send event" }).click();
  await page.getByRole("status").filter({ hasText: "Recorded" }).waitFor();
  await page.getByRole("cell", { name: "W".repeat(255), exact: true }).waitFor();
  await watch.check("candidate-long-values");

  // A webhook endpoint at the local receiver: its secret once (copied), a test, its answer.
  await nav(page, "Webhooks");
  await heading(page, "Webhooks");
  await watch.check("webhooks-empty");
  await page.getByRole("button", { name: "New endpoint" }).first().click();
  const endpointUrl = `${receiver.url}/journey`;
  await page.getByLabel("URL").fill(endpointUrl);
  // The API counts a limit in characters (code points); a field's maxlength counts UTF-16 units, and
  // would cut emoji at half the limit without a word. No field cuts what is typed.
  const receipts = "\u{1F9FE}".repeat(600);
  await page.getByLabel("Description (optional)").fill(receipts);
  assert.equal(await page.getByLabel("Description (optional)").inputValue(), receipts, "the description is cut short");
  await page.getByLabel("Description (optional)").fill("Journey receiver");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  const secretBox = page.getByRole("textbox", { name: "Signing secret" });
  // The secret takes the focus, ready to copy (a first Tab onto the endpoint's link would leave it behind).
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Signing secret");
  const secret = await secretBox.inputValue();
  assert.match(secret, /^whsec_/);
  await page.getByRole("button", { name: "Copy" }).click();
  assert.equal(await clipboard(), secret, "Copy puts the secret on the clipboard");
  await page.getByRole("status").filter({ hasText: "Copied to the clipboard." }).waitFor();
  await watch.check("webhooks-secret");
  await page.getByRole("button", { name: "Done" }).click();
  assert.equal(await page.getByText(secret).count(), 0, "the secret is gone once done");
  await page.getByRole("link", { name: endpointUrl }).click();
  await page.getByRole("button", { name: "Send a test" }).click();
  await page
    .getByText(/^Test /)
    .first()
    .waitFor();
  await eventually("the receiver gets the test", async () => receiver!.received("journey").length === 1);
  const test = receiver.received("journey")[0];
  new Webhook(secret).verify(test.body, test.headers); // throws unless signed with the secret shown
  await watch.check("webhook");
  // Editing takes the focus to the form's first field; saving gives it back to Edit.
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  await page.waitForFunction(() => document.activeElement?.id === "edit-endpoint-url");
  await page.getByLabel("Description (optional)").fill("The journey's receiver");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page
    .waitForFunction(() => document.activeElement?.textContent?.trim() === "Edit", undefined, { timeout: 5000 })
    .catch(async () =>
      assert.fail(
        `after saving, focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`,
      ),
    );
  // What a change did is said in a live region; disabling and enabling again are said too.
  await page.getByRole("status").filter({ hasText: "Saved the changes." }).waitFor();
  await page.getByRole("button", { name: "Disable", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Disabled." }).waitFor();
  await page.getByRole("button", { name: "Enable", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Enabled: notifications are delivered to it again." }).waitFor();

  // Resend the candidate's confirmation from the feed; it arrives, and its delivery is in the log.
  await nav(page, "Notifications");
  await heading(page, "Notifications");
  await page.getByLabel("Candidate alias").fill(alias);
  await page.getByRole("button", { name: "Filter" }).click();
  const confirmed = page.getByRole("row").filter({ hasText: "candidate.confirmed" });
  await confirmed.waitFor();
  // What a read found is said, so a screen reader hears a filter's result.
  await page
    .getByRole("status")
    .filter({ hasText: /^\d+ notifications? on this page\.$/ })
    .waitFor();
  await confirmed.getByRole("button", { name: /^Resend/ }).click();
  await eventually("the receiver gets the resent notification", async () =>
    receiver!.received("journey").some((r) => JSON.parse(r.body).type === "candidate.confirmed"),
  );
  await watch.check("notifications");
  await nav(page, "Webhooks");
  await page.getByRole("link", { name: endpointUrl }).click();
  await eventually("the delivery log shows the resend, succeeded", async () => {
    await page
      .getByRole("button", { name: /Refresh|Reload/ })
      .first()
      .click();
    return (
      (await page
        .getByRole("row")
        .filter({ hasText: "candidate.confirmed" })
        .filter({ hasText: "succeeded" })
        .count()) > 0
    );
  });
  const logWidth = await page
    .locator(".table-wrap", { has: page.getByRole("columnheader", { name: "Resend" }) })
    .evaluate((wrap) => ({ needs: wrap.scrollWidth, has: wrap.clientWidth }));
  assert.ok(
    logWidth.needs <= logWidth.has,
    `the delivery log fits a 1280 px window, Resend in view: ${JSON.stringify(logWidth)}`,
  );
  await watch.check("webhook-deliveries");

  // The month's bill: the customer's CONFIRMED amount, exact.
  await nav(page, "Billing");
  await heading(page, "Billing");
  const customerRow = page.getByRole("row").filter({ hasText: customer });
  await customerRow.waitFor();
  assert.match(await customerRow.innerText(), /\b49\.5\b/, "the customer's confirmed amount");
  // The month's candidates as the API's CSV, downloaded once the API says this tab's account is signed in.
  const [monthCsv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export this month’s candidates (CSV)" }).click(),
  ]);
  const csvText = readFileSync((await monthCsv.path())!, "utf8");
  assert.match(csvText, /^candidate_alias,customer_uuid,status,/, "the export's header row");
  assert.ok(csvText.includes(`${alias},${customer},CONFIRMED,`), "the month's confirmed candidate");
  // No month to come (a status begins now or before), and no export of a month without candidates.
  assert.ok(await page.getByRole("button", { name: "Next month →" }).isDisabled(), "no month after this one");
  await page.getByRole("button", { name: "← Previous month" }).click();
  await page.getByText("No candidate’s status began in").waitFor();
  assert.equal(await page.getByRole("button", { name: "Export this month’s candidates (CSV)" }).count(), 0);
  await page.getByRole("button", { name: "This month" }).click();
  await customerRow.waitFor();
  await watch.check("billing");
  // The customer's row opens the candidates it counts: the customer's, whose status began this month.
  await customerRow.getByRole("link", { name: customer }).click();
  await heading(page, "Candidates");
  assert.equal(
    await page.getByLabel("Status since, from (UTC day)").inputValue(),
    `${new Date().toISOString().slice(0, 7)}-01`,
  );
  await page.getByRole("link", { name: alias, exact: true }).waitFor();

  // A key that may only send events: its secret once, refused elsewhere, then revoked.
  await nav(page, "API keys");
  await heading(page, "API keys");
  await page.getByRole("button", { name: "New key" }).first().click();
  await page.getByLabel("Name", { exact: true }).fill("Events only");
  await page.getByLabel(/Full access/).setChecked(false);
  await page.getByRole("group", { name: "Events" }).getByLabel("write").check();
  await page.getByRole("button", { name: "Create key" }).click();
  const keyBox = page.getByRole("textbox", { name: /secret/i });
  const key = await keyBox.inputValue();
  assert.match(key, /^cct_/);
  await page.getByRole("button", { name: "Copy" }).click();
  assert.equal(await clipboard(), key);
  await watch.check("api-keys-secret");
  await page.getByRole("button", { name: "Done" }).click();
  const asKey = (path: string, init: RequestInit = {}) =>
    fetch(`${dev.url}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...init.headers },
    });
  assert.equal(
    (await asKey("/v1/events", { method: "POST", body: JSON.stringify({ candidate_alias: alias, type: "view" }) }))
      .status,
    201,
    "the key sends events",
  );
  const refused = await asKey("/v1/candidates");
  assert.equal(refused.status, 403, "and may do nothing else");
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "PERMISSION_DENIED");
  const keyRow = page.getByRole("row").filter({ hasText: "Events only" });
  // Each row's buttons name their key, so a list of the page's buttons tells them apart.
  await keyRow.locator(".row-actions").getByRole("button", { name: "Revoke Events only", exact: true }).click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  await keyRow.getByText("revoked", { exact: true }).waitFor();
  await eventually(
    "the revoked key stops working",
    async () => (await asKey("/v1/events", { method: "POST", body: "{}" })).status === 401,
  );
  await watch.check("api-keys");

  // The candidates list, filtered by the alias's beginning.
  await nav(page, "Candidates");
  await page.getByLabel("Alias begins with").fill(`journey-${stamp}`);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await page.getByRole("link", { name: alias }).waitFor();
  await watch.check("candidates");
  await nav(page, "Overview");
  await heading(page, "Overview");
  await watch.check("overview");

  // A link opened while signed in asks before it replaces the session (it may be someone else's).
  await page.goto((await accounts("sign-in-link", "--account", account.account_id)).url);
  const ask = page.getByRole("group", { name: "Use this sign-in link?" });
  await ask.waitFor();
  assert.ok(await ask.evaluate((group) => group === document.activeElement), "the question has the focus");
  await watch.check("sign-in-while-signed-in");
  await ask.getByRole("button", { name: /^Stay in/ }).click();
  await heading(page, "Overview");
  // A link used already, opened while signed in: its refusal is said where it was asked, and the
  // link is not offered again; staying goes on as before.
  await page.goto(link.url);
  await ask.waitFor();
  await ask.getByRole("button", { name: "Use the link" }).click();
  await ask.getByText(/INVALID_SIGN_IN_LINK/).waitFor();
  assert.equal(await ask.getByRole("button", { name: "Use the link" }).count(), 0, "not offered again");
  await watch.check("sign-in-link-refused-while-signed-in");
  await ask.getByRole("button", { name: /^Stay in/ }).click();
  await heading(page, "Overview");

  // Sign out with the keyboard; the pages then send to sign-in.
  await page.getByRole("button", { name: "Sign out" }).focus();
  await page.keyboard.press("Enter");
  await heading(page, "Sign in to the dashboard");
  await page.goto(`${dev.url}/dashboard/billing`);
  await heading(page, "Sign in to the dashboard");
  assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in");
  await watch.check("sign-in");

  // No secret ever went into an address.
  for (const url of watch.requested)
    assert.ok(
      !url.includes(secret) && !url.includes(key) && !url.includes(link.url.split("#code=")[1]),
      `no secret in ${url}`,
    );
  console.log(
    `first page interactive ${Math.round(interactiveMs)} ms after navigation (sign-in link to the overview's heading)`,
  );
  console.log(
    `API errors shown on purpose: ${watch.apiErrors.map((e) => `${e.status} ${e.code}`).join(", ") || "none"}`,
  );
});

test("the dashboard's edges: the address keeps the page, focus stays put, refusals re-read", async () => {
  const stamp = Date.now().toString(36);
  const account = await accounts("create", "--name", `Dashboard edges ${stamp}`);
  const call = async (path: string, body?: unknown, token: string = account.token) => {
    const response = await fetch(`${dev.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
    return response.json() as Promise<any>;
  };
  await call("/v1/schemas", {
    contract: {
      price: 10,
      activity_window: 3600,
      review_window: 3600,
      fulfillment_condition: { event: "purchase" },
      timeout_outcome: "fail",
    },
  });
  // The oldest candidate's activity window ends first (30 min), though the 100 newest OPEN end later.
  const soonest = `edges-${stamp}-soonest`;
  await call("/v1/candidates", {
    candidate_alias: soonest,
    customer_uuid: "edges",
    contract: {
      price: 10,
      activity_window: 1800,
      review_window: 3600,
      fulfillment_condition: { event: "purchase" },
      timeout_outcome: "fail",
    },
  });
  // 105 candidates, newest first 50 a page: pages begin with the 105th, the 55th and the 5th.
  const aliases = Array.from({ length: 105 }, (_, i) => `edges-${stamp}-${String(i).padStart(3, "0")}`);
  for (const alias of aliases) await call("/v1/candidates", { candidate_alias: alias, customer_uuid: "edges" });

  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watch = new PageWatch(page, dev.url);
  /** Waits for the focus to reach the element named `name` (a page focuses what it opens as it renders). */
  const focusReaches = (name: string, why: string) =>
    page
      .waitForFunction((text) => document.activeElement?.textContent?.trim() === text, name, { timeout: 5000 })
      .catch(async () =>
        assert.fail(`${why}: focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`),
      );

  // A link pasted into the tab after a refused one (the address differs only after `#`) signs in.
  await page.goto(`${dev.url}/dashboard/sign-in#code=${"x".repeat(43)}`);
  await page.getByRole("alert").filter({ hasText: "INVALID_SIGN_IN_LINK" }).waitFor();
  await page.goto((await accounts("sign-in-link", "--account", account.account_id)).url);
  await heading(page, "Overview");
  // "About to time out" finds the soonest among more than a page of OPEN candidates ending within 24 h.
  const timingOut = page.getByRole("region", { name: "Candidates about to time out" });
  await timingOut.getByRole("link", { name: soonest }).waitFor();
  await timingOut.getByText(/^More than 100 OPEN candidates/).waitFor();
  await watch.check("edges-overview-timing-out");
  // On a phone, when each times out is beside its alias, in view without scrolling the table.
  const wide = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  const ends = await timingOut.locator("td.ends").first().boundingBox();
  assert.ok(ends && ends.x + ends.width <= 390, `a time-out's end is in view at 390 px: ${JSON.stringify(ends)}`);
  await page.setViewportSize(wide);

  // The list's page is in the address: a reload and Back keep it; Previous knows the page before.
  const [first, second, third] = [104, 54, 4].map((i) => aliases[i]);
  const shows = (p: Page, alias: string) => p.getByRole("link", { name: alias }).waitFor();
  await nav(page, "Candidates");
  await shows(page, first);
  // A double click moves one page, not onto the same page twice.
  await page.getByRole("button", { name: "Next →" }).dblclick();
  await shows(page, second);
  await page.getByRole("button", { name: "← Previous" }).click();
  await shows(page, first);
  // A filter typed but not applied is dropped by Next: the form shows what the list was read with.
  await page.getByLabel("Customer", { exact: true }).fill("typed, not applied");
  await page.getByRole("button", { name: "Next →" }).click();
  await shows(page, second);
  assert.equal(await page.getByLabel("Customer", { exact: true }).inputValue(), "", "no unapplied draft after Next");
  assert.ok(new URL(page.url()).searchParams.get("after"), "the second page's cursor is in the address");
  await page.reload();
  await shows(page, second);
  await page.getByRole("button", { name: "← Previous" }).click();
  await shows(page, first);
  await page.goBack();
  await shows(page, second);
  // A bookmarked page knows no page before it: "First page", there and after a Next and a Previous.
  const fresh = await context.newPage();
  await fresh.goto(page.url());
  await shows(fresh, second);
  await fresh.getByRole("button", { name: "Next →" }).click();
  await shows(fresh, third);
  // The last page: Next is marked unavailable but keeps the focus (a disabled button would drop it).
  assert.equal(await fresh.getByRole("button", { name: "Next →" }).getAttribute("aria-disabled"), "true");
  await fresh.waitForFunction(() => document.activeElement?.textContent?.trim() === "Next →");
  await fresh.getByRole("button", { name: "← Previous" }).click();
  await shows(fresh, second);
  await fresh.getByRole("button", { name: "← First page" }).click();
  await shows(fresh, first);
  // The same filters applied from a later page start again at the first, the focus on Apply.
  await fresh.getByRole("button", { name: "Next →" }).click();
  await shows(fresh, second);
  await fresh.getByRole("button", { name: "Apply filters" }).focus();
  await fresh.keyboard.press("Enter");
  await shows(fresh, first);
  await fresh.waitForFunction(() => document.activeElement?.textContent?.trim() === "Apply filters");
  await fresh.close();
  // A cursor gone bad (edited, its row deleted) is refused, with a way back to the first page.
  await page.goto(`${dev.url}/dashboard/candidates?after=not-a-cursor`);
  await page.getByRole("alert").filter({ hasText: "VALIDATION_ERROR" }).waitFor();
  await watch.check("edges-bad-cursor");
  await page.getByRole("button", { name: "← First page" }).click();
  await shows(page, first);
  // A metadata filter the API refuses (a key over 40 characters) is shown at the Metadata field,
  // named by its key.
  const longKey = "k".repeat(41);
  await page.goto(`${dev.url}/dashboard/candidates?metadata[${longKey}]=x`);
  const metadataError = page.locator(".field.invalid", { has: page.getByLabel("Metadata") }).locator(".field-error");
  await metadataError.filter({ hasText: `${longKey}: ` }).waitFor();
  await watch.check("edges-metadata-filter-refused");
  await page.goto(`${dev.url}/dashboard/candidates`);
  await shows(page, first);

  // A "to" day before the "from" day is refused at the field in the form's words, not the API's.
  await page.getByLabel("Status since, from (UTC day)").fill("2026-11-10");
  await page.getByLabel("to (UTC day, inclusive)").fill("2026-11-01");
  await page.getByRole("button", { name: "Apply filters" }).click();
  const toError = page.locator(".field.invalid", { has: page.getByLabel("to (UTC day, inclusive)") });
  await toError.getByText("must not be before the “from” day").waitFor();
  assert.equal(await page.getByText("status_since_gte").count(), 0, "no API field name the form does not show");

  // A new form takes the focus (its button is gone); Cancel gives it to the page's heading.
  await page.getByRole("button", { name: "New candidate" }).click();
  await focusReaches("New candidate", "the new form's heading takes the focus");
  await page.getByRole("button", { name: "Cancel" }).click();
  await focusReaches("Candidates", "Cancel gives the focus to the page's heading");

  // A refused void (another tab voided it first) says why, and the page shows the candidate as it is.
  await page.goto(`${dev.url}/dashboard/candidates/${aliases[0]}`);
  await heading(page, aliases[0]);
  await page.getByRole("button", { name: "Void (fail)" }).click();
  await focusReaches("Yes, void it", "the question takes the focus");
  await page.keyboard.press("Escape");
  await focusReaches("Void (fail)", "Escape closes the question, focus back on its button");
  await call(`/v1/candidates/${aliases[0]}/resolve`, { outcome: "FAILED" });
  await page.getByRole("button", { name: "Void (fail)" }).click();
  await page.getByRole("button", { name: "Yes, void it" }).click();
  await page.getByRole("alert").filter({ hasText: "INVALID_STATE" }).waitFor();
  await page.getByText("FAILED is final").waitFor();
  await page.locator(".page-head .badge", { hasText: "FAILED" }).waitFor();
  assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), "BODY", "focus stays in the panel");
  // One made says so, where its buttons were, and holds the focus, so a screen reader reads it out.
  await page.goto(`${dev.url}/dashboard/candidates/${aliases[1]}`);
  await heading(page, aliases[1]);
  await page.getByRole("button", { name: "Confirm now" }).click();
  await page.getByRole("button", { name: "Yes, confirm it" }).click();
  await page.waitForFunction(
    () =>
      document.activeElement?.getAttribute("role") === "status" &&
      document.activeElement.textContent!.startsWith("Confirmed: the candidate is CONFIRMED, for good."),
    undefined,
    { timeout: 5000 },
  );
  // Clearing the list's filters takes the link away with them: the new form's Apply has the focus.
  await page.goto(`${dev.url}/dashboard/candidates?status=OPEN`);
  await page.getByRole("link", { name: "Clear filters" }).click();
  await page.waitForURL((url) => url.search === "");
  await focusReaches("Apply filters", "Clear filters gives the focus to Apply");

  // A schema's delete question takes the focus; Escape closes it and gives the focus back.
  await nav(page, "Schemas");
  const deleteButton = page.getByRole("button", { name: /^Delete / });
  await deleteButton.click();
  await page.waitForFunction(() => document.activeElement?.closest(".confirm-inline") !== null);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label")?.startsWith("Delete "));
  assert.equal(await page.locator(".confirm-inline").count(), 0, "the question is gone");
  // Two rows' deletes, the second confirmed while the first is on its way: both are made.
  const doomed = ["Doomed one", "Doomed two"];
  for (const name of doomed) {
    await call("/v1/schemas", {
      name,
      contract: {
        price: 1,
        activity_window: 60,
        review_window: 0,
        fulfillment_condition: { event: "x" },
        timeout_outcome: "fail",
      },
    });
  }
  await page.reload();
  let sent = 0;
  await page.route("**/v1/schemas/*", async (route) => {
    if (route.request().method() !== "DELETE") return route.continue();
    sent++;
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  for (const name of doomed) await page.getByRole("button", { name: `Delete ${name}` }).click();
  for (const name of doomed)
    await page
      .getByRole("group", { name: new RegExp(`^Delete “${name}”`) })
      .getByRole("button", { name: "Delete" })
      .click();
  const stillThere = async () =>
    (await call("/v1/schemas")).data.filter((s: { name: string | null }) => doomed.includes(s.name ?? ""));
  for (let i = 0; i < 50 && (await stillThere()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  await page.unroute("**/v1/schemas/*");
  assert.equal(sent, 2, "each confirmed delete is sent");
  assert.deepEqual(await stillThere(), [], "both schemas are deleted");

  // An endpoint deleted from its page: the list it goes back to says so, with the focus.
  const doomedEndpoint = await call("/v1/webhook_endpoints", { url: `http://127.0.0.1:9/edges-${stamp}` });
  await page.goto(`${dev.url}/dashboard/webhooks/${doomedEndpoint.id}`);
  await page.getByRole("button", { name: "Delete this endpoint" }).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await heading(page, "Webhooks");
  await page.waitForFunction(
    (url) =>
      document.activeElement?.getAttribute("role") === "status" &&
      document.activeElement.textContent!.startsWith(`Deleted the endpoint ${url}`),
    doomedEndpoint.url,
    { timeout: 5000 },
  );

  // The feed's filter box follows Back.
  await nav(page, "Notifications");
  for (const alias of [aliases[0], aliases[1]]) {
    await page.getByLabel("Candidate alias").fill(alias);
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get("candidate_alias") === alias);
  }
  await page.goBack();
  await page.waitForURL((url) => url.searchParams.get("candidate_alias") === aliases[0]);
  assert.equal(await page.getByLabel("Candidate alias").inputValue(), aliases[0]);
  await page.getByRole("button", { name: "Clear filters" }).click();
  await page.waitForURL((url) => url.search === "");
  await focusReaches("Filter", "Clear filters gives the focus to Filter");

  // Another tab signs this browser in to another account: a tab still showing the first acts on
  // neither. Its next call goes to sign-in, which says why and offers the account signed in now.
  // Nor does its CSV download (which cannot name the account: it asks first), nor its
  // Sign out, which would end the other tab's session.
  const stale = await context.newPage();
  const staleWatch = new PageWatch(stale, dev.url);
  await stale.goto(`${dev.url}/dashboard/schemas`);
  await heading(stale, "Schemas");
  const staleExport = await context.newPage();
  const staleExportWatch = new PageWatch(staleExport, dev.url);
  await staleExport.goto(`${dev.url}/dashboard/candidates`);
  await heading(staleExport, "Candidates");
  const staleSignOut = await context.newPage();
  const staleSignOutWatch = new PageWatch(staleSignOut, dev.url);
  await staleSignOut.goto(`${dev.url}/dashboard/billing`);
  await heading(staleSignOut, "Billing");
  const other = await accounts("create", "--name", `Other account ${stamp}`);
  const otherTab = await context.newPage();
  await otherTab.goto((await accounts("sign-in-link", "--account", other.account_id)).url);
  await otherTab.getByRole("button", { name: "Use the link" }).click();
  await heading(otherTab, "Overview");
  await otherTab.close();
  staleWatch.expectLeavingAnswer(401, /\/v1\/api_keys\?/);
  await nav(stale, "API keys");
  await stale.getByText("This page was signed in to another account").waitFor();
  await stale.getByRole("button", { name: `Go on as Other account ${stamp}` }).waitFor();
  await staleWatch.check("sign-in-after-another-tab-signed-in");
  let downloads = 0;
  staleExport.on("download", () => downloads++);
  staleExportWatch.expectLeavingAnswer(401, /\/v1\/candidates\?/);
  await staleExport.getByRole("button", { name: "Download CSV" }).click();
  await staleExport.getByText("This page was signed in to another account").waitFor();
  assert.equal(downloads, 0, "a tab showing another account downloads nothing");
  await staleExport.close();
  staleSignOutWatch.expectLeavingAnswer(401, /\/dashboard\/session$/);
  await staleSignOut.getByRole("button", { name: "Sign out" }).click();
  await staleSignOut.getByText("This page was signed in to another account").waitFor();
  assert.equal(
    (await context.request.get(`${dev.url}/dashboard/session`)).status(),
    200,
    "the other tab's session goes on",
  );
  await staleSignOut.close();
  await stale.goto((await accounts("sign-in-link", "--account", account.account_id)).url);
  await stale.getByRole("button", { name: "Use the link" }).click();
  await heading(stale, "Overview");
  await stale.close();

  await nav(page, "API keys");
  await page
    .getByRole("status")
    .filter({ hasText: /^\d+ keys? on this page\.$/ })
    .waitFor();
  // The skip link takes the focus past the header, into the page: the next Tab is the page's first control.
  await page.getByRole("link", { name: "Skip to content" }).focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.activeElement?.id === "main", undefined, { timeout: 5000 });
  assert.equal(new URL(page.url()).hash, "", "and adds no history entry (Back goes to the page before)");
  // A key's revoke question takes the focus; Escape closes it and gives the focus back.
  await page
    .locator(".row-actions")
    .getByRole("button", { name: /^Revoke / })
    .click();
  await focusReaches("Revoke key", "the question takes the focus");
  await page.keyboard.press("Escape");
  await focusReaches("Revoke", "Escape gives the focus back to Revoke");
  assert.equal(
    await page.getByRole("button", { name: "Revoke key", exact: true }).count(),
    0,
    "and the question is gone",
  );
  await page.getByRole("button", { name: "New key" }).click();
  await focusReaches("New API key", "the new key's form takes the focus");
  // Sent from the keyboard and refused at a field: the focus stays on the button, the refusal is said.
  await page.locator("#key-name").fill("k".repeat(101));
  await page.getByRole("group", { name: "Events" }).getByLabel("write").check();
  await page.getByRole("button", { name: "Create key" }).focus();
  await page.keyboard.press("Enter");
  await page.getByText("must be at most 100 characters").waitFor();
  await focusReaches("Create key", "a refused create keeps the focus on its button");
  await page.getByRole("status").filter({ hasText: "The service refused the key: see the fields." }).waitFor();
  // A chosen expiry day starts tomorrow (UTC): the key stops as that day begins, and today's has.
  await page.getByLabel("Expires", { exact: true }).selectOption("date");
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  assert.equal(await page.getByLabel("Expiry date").getAttribute("min"), tomorrow, "no past day offered");
  await page.getByRole("button", { name: "Cancel" }).click();
  await focusReaches("API keys", "Cancel gives the focus to the page's heading");

  // At 100 keys not revoked a roll is refused (its new key would be the 101st), and the refusal is
  // said in the form, the focus kept on its button.
  for (let i = 0; i < 99; i++) await call("/v1/api_keys", { name: `filler ${i}` });
  await page.reload();
  await heading(page, "API keys");
  await page.getByText("100 of 100 keys not revoked (100 active, 0 expired): the most an account may have").waitFor();
  await page
    .locator(".row-actions")
    .getByRole("button", { name: /^Roll / })
    .first()
    .click();
  await page.getByRole("button", { name: "Roll key", exact: true }).click();
  await page.getByText("An account can have at most 100 API keys that are not revoked").waitFor();
  await focusReaches("Roll key", "a refused roll keeps the focus on its button");
  await watch.check("edges-roll-at-limit");
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  // Revoking takes the row's Roll and Revoke away once the list is read again: Rename keeps the focus.
  const row = page.getByRole("row", { name: /filler 97/ });
  await row
    .locator(".row-actions")
    .getByRole("button", { name: /^Revoke / })
    .click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  await row
    .locator(".row-actions")
    .getByRole("button", { name: /^Roll / })
    .waitFor({ state: "detached" });
  await focusReaches("Rename", "after a revoke the row's Rename has the focus");
  assert.ok(
    await row
      .locator(".row-actions")
      .getByRole("button", { name: /^Rename / })
      .evaluate((b) => b === document.activeElement),
  );
  // With room again, a roll keeping the old key for an hour is made; the old key, replaced, says so
  // and offers no second Roll (the API would refuse it).
  const rolling = page.getByRole("row", { name: /^filler 95 / });
  await rolling
    .locator(".row-actions")
    .getByRole("button", { name: /^Roll / })
    .click();
  await page.getByRole("button", { name: "Roll key", exact: true }).click();
  // The new secret takes the focus, ready to copy; Done gives it to the page's heading.
  await page.waitForFunction(
    () => document.activeElement?.getAttribute("aria-label") === "The new secret of “filler 95”",
  );
  await page.getByRole("button", { name: "Done" }).click();
  await focusReaches("API keys", "Done gives the focus to the page's heading");
  const replaced = page.getByRole("row", { name: /^filler 95 / }).filter({ hasText: "Replaced by a roll" });
  await replaced.waitFor();
  assert.equal(
    await replaced
      .locator(".row-actions")
      .getByRole("button", { name: /^Roll / })
      .count(),
    0,
    "no second roll",
  );
  assert.equal(
    await replaced
      .locator(".row-actions")
      .getByRole("button", { name: /^Revoke / })
      .count(),
    1,
    "still revocable",
  );
  await watch.check("edges-replaced-by-roll");
  // Under "Active" the revoked key's row leaves the list: a notice says so and takes the focus,
  // and Dismiss gives it to the page's heading.
  await page.getByLabel("Status").selectOption({ label: "Active" });
  await page.waitForURL((url) => url.searchParams.get("status") === "active");
  const leaving = page.getByRole("row", { name: /^filler 96 / }); // not its panel's row, "Revoke “filler 96”"
  await leaving
    .locator(".row-actions")
    .getByRole("button", { name: /^Revoke / })
    .click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  await leaving.waitFor({ state: "detached" });
  await page.waitForFunction(
    () =>
      document.activeElement?.getAttribute("role") === "status" &&
      document.activeElement.textContent?.includes("“filler 96” is revoked, so it is no longer listed under “Active”."),
    undefined,
    { timeout: 5000 },
  );
  await watch.check("edges-revoked-under-active");
  await page.getByRole("button", { name: "Dismiss" }).click();
  await focusReaches("API keys", "Dismiss gives the focus to the page's heading");
  await page.goBack(); // the unfiltered list, so Back after signing out still leads where it did
  await page.waitForURL((url) => !url.searchParams.has("status"));
  // A key given every permission by name is not a full-access key: its row lists them instead.
  const every = (await call("/v1/api_keys?limit=1")).data[0].permissions as string[];
  const byNameKey = await call("/v1/api_keys", { name: "every permission, by name", permissions: every });
  await page.reload();
  const byName = page.getByRole("row", { name: /^every permission, by name / });
  await byName.getByText("api_keys:write").waitFor();
  assert.equal(await byName.getByText("Full access").count(), 0, "not called full access");
  // A session whose key may write keys but do little else, and expires: keys that can do more are
  // not offered to it to change, and its new keys may not outlive it. (Room made under 100 keys.)
  const filler = (await call("/v1/api_keys?status=active&limit=100")).data.find((k: { name: string }) =>
    k.name.startsWith("filler"),
  );
  await call(`/v1/api_keys/${filler.id}/revoke`, {});
  const manager = await call("/v1/api_keys", {
    name: "Key manager",
    permissions: ["api_keys:write"],
    expires_at: new Date(Date.now() + 86_400_000).toISOString(),
  });
  const managerContext = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const managerPage = await managerContext.newPage();
  await managerPage.goto(`${dev.url}/dashboard/sign-in`);
  await managerPage.getByLabel("API key").fill(manager.secret);
  await managerPage.getByRole("button", { name: "Sign in" }).click();
  await heading(managerPage, "Overview");
  await nav(managerPage, "API keys");
  const outranking = managerPage.getByRole("row", { name: /^every permission, by name / });
  await outranking.getByText("It can do more than this session’s key").waitFor();
  assert.equal(await outranking.getByRole("button").count(), 0, "no Rename, Roll or Revoke for it");
  await managerPage.getByRole("button", { name: "New key" }).click();
  const expires = managerPage.getByLabel("Expires", { exact: true });
  assert.match(await expires.locator("option:checked").innerText(), /^With this session's key/);
  assert.equal(await expires.locator("option", { hasText: "Never" }).count(), 0, "no key outliving the session's");
  assert.equal(await expires.locator("option", { hasText: "In 30 days" }).count(), 0);
  // Another tab signs in with a key that may only read keys: back in view, this tab offers no change.
  assert.ok((await managerPage.getByRole("button", { name: /^Revoke / }).count()) > 0, "its own keys' Revoke");
  await call(`/v1/api_keys/${byNameKey.id}/revoke`, {}); // room for it (and, revoked after, for the keys below)
  const reader = await call("/v1/api_keys", { name: "Key reader", permissions: ["api_keys:read"] });
  const readerTab = await managerContext.newPage();
  await readerTab.goto(`${dev.url}/dashboard/sign-in`);
  await readerTab.getByLabel("API key").fill(reader.secret);
  await readerTab.getByRole("button", { name: "Sign in" }).click();
  await heading(readerTab, "Overview");
  await managerPage.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  await managerPage.getByText("Key reader").first().waitFor();
  assert.equal(await managerPage.getByRole("button", { name: /^Revoke / }).count(), 0, "no Revoke once read-only");
  await managerContext.close();
  await call(`/v1/api_keys/${reader.id}/revoke`, {});

  // Back after signing out goes to sign-in, not a page left loading.
  await page.getByRole("button", { name: "Sign out" }).click();
  await heading(page, "Sign in to the dashboard");
  await page.goBack();
  await page.waitForURL((url) => url.pathname === "/dashboard/sign-in" && url.searchParams.has("ended"));
  await heading(page, "Sign in to the dashboard");

  // A key that may create candidates but not list schemas still can: an id, or the newest schema.
  const { token: creator, token_id: creatorId } = await accounts(
    "tokens",
    "create",
    "--account",
    account.account_id,
    "--name",
    "Creator",
    "--permissions",
    "candidates:write",
  );
  await page.getByLabel("API key").fill(creator);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Back to the page Back asked for, which this key may not read (it says so).
  await heading(page, "Notifications");
  await nav(page, "Candidates");
  await page.getByRole("button", { name: "New candidate" }).click();
  const form = page.getByRole("form", { name: "New candidate" });
  await form.getByLabel("Alias").fill(`edges-${stamp}-made`);
  await form.getByLabel("Customer").fill("edges");
  // A schema id that is not the account's is refused at the field.
  await form.getByLabel("Schema id (optional)").fill("01a20d9d-0000-7000-8000-000000000000");
  await form.getByRole("button", { name: "Create candidate" }).click();
  await form.locator(".field.invalid", { has: page.getByLabel("Schema id (optional)") }).waitFor();
  await form.getByRole("alert").filter({ hasText: "One problem, shown at the fields above." }).waitFor();
  assert.equal(await form.getByLabel("Schema id (optional)").getAttribute("aria-invalid"), "true");
  await watch.check("edges-schema-id-refused");
  await form.getByLabel("Schema id (optional)").fill("");
  await form.getByRole("button", { name: "Create candidate" }).click();
  await heading(page, `edges-${stamp}-made`);
  await watch.check("edges-created-without-schemas-read");

  // Its key revoked meanwhile, the session's next call finds it ended, and sign-in says why.
  await call(`/v1/api_keys/${creatorId}/revoke`, {});
  watch.expectLeavingAnswer(401, /\/v1\/candidates\?/);
  await nav(page, "Candidates");
  await heading(page, "Sign in to the dashboard");
  await page
    .getByRole("status")
    .getByText("The session ended when the API key it signed in with was revoked.", { exact: false })
    .waitFor();
  await watch.check("sign-in-after-revoke");

  // A session rolling its own key, keeping the old one a while: the row says it is replaced and
  // offers no second Roll while the secret is shown (the list is not read again until Done).
  // Room under the 100 keys not revoked for the new key and the roll's replacement:
  const active = (await call("/v1/api_keys?status=active&limit=100")).data as { id: string; name: string }[];
  for (const filler of active.filter((k) => k.name.startsWith("filler ")).slice(0, 2))
    await call(`/v1/api_keys/${filler.id}/revoke`, {});
  const { token: self } = await accounts("tokens", "create", "--account", account.account_id, "--name", "Self");
  // A key refused, signed in with the mouse: the refusal is said, the focus stays on the button.
  await page.getByLabel("API key").fill(`cct_${"x".repeat(43)}`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("alert").filter({ hasText: "INVALID_API_TOKEN" }).waitFor();
  await focusReaches("Sign in", "a refused sign-in keeps the focus on its button");
  await page.getByLabel("API key").fill(self);
  await page.getByRole("button", { name: "Sign in" }).click();
  await heading(page, "Candidates");
  await nav(page, "API keys");
  // The session's own row (after the roll, the new key has the same name).
  const own = page.getByRole("row", { name: /^Self / }).filter({ hasText: "this session’s key" });
  await own
    .locator(".row-actions")
    .getByRole("button", { name: /^Roll / })
    .click();
  await page.getByRole("button", { name: "Roll key", exact: true }).click();
  await page.getByRole("button", { name: "Done" }).waitFor();
  await own.getByText("Replaced by a roll").waitFor();
  assert.equal(
    await own
      .locator(".row-actions")
      .getByRole("button", { name: /^Roll / })
      .count(),
    0,
    "no second roll of the own key",
  );
  const rolledSecret = await page.getByRole("textbox", { name: "The new secret of “Self”" }).inputValue();
  await page.getByRole("button", { name: "Done" }).click();
  // The old key works for an hour yet: the list and its count are read again, the new key in them.
  await page
    .getByRole("row", { name: /^Self / })
    .filter({ hasNotText: "this session’s key" })
    .waitFor();

  // Signed out here and in again in the same tab, then out again and in from another tab, then
  // Back here: each time the pages' calls work (sign-out had left them all aborted).
  await page.getByRole("button", { name: "Sign out" }).click();
  await heading(page, "Sign in to the dashboard");
  await page.getByLabel("API key").fill(rolledSecret);
  await page.getByRole("button", { name: "Sign in" }).click();
  await heading(page, "Overview");
  await nav(page, "Schemas"); // Back from sign-in comes to the overview, in this same document
  await heading(page, "Schemas");
  await page.getByRole("button", { name: "Sign out" }).click();
  await heading(page, "Sign in to the dashboard");
  const secondTab = await context.newPage();
  await secondTab.goto(`${dev.url}/dashboard/sign-in`);
  await secondTab.getByLabel("API key").fill(rolledSecret);
  await secondTab.getByRole("button", { name: "Sign in" }).click();
  await heading(secondTab, "Overview");
  await secondTab.close();
  await page.goBack();
  await heading(page, "Overview");
  await nav(page, "API keys");
  // Rolled again with no overlap, while a read of the list is still under way (it will be answered
  // 401): the session has ended at the roll, so the page keeps only the secret and says so; it does
  // not leave for sign-in before the secret is copied. Done goes to sign-in.
  const ownNow = page.getByRole("row", { name: /^Self / }).filter({ hasText: "this session’s key" });
  await ownNow
    .locator(".row-actions")
    .getByRole("button", { name: /^Roll / })
    .click();
  await page.getByLabel("The old key stops working").selectOption({ label: "Now" });
  await page.route(/\/v1\/api_keys\?.*status=active/, async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  watch.expectLeavingAnswer(401, /\/v1\/api_keys\?/);
  await page.getByLabel("Status").selectOption({ label: "Active" });
  await page.getByRole("button", { name: "Roll key", exact: true }).click();
  await page.getByText("The old key stopped working at the roll, and this browser’s session with it").waitFor();
  await page.waitForTimeout(2500); // the read held back has been answered 401 by now
  await page.unroute(/\/v1\/api_keys\?.*status=active/);
  assert.match(page.url(), /\/dashboard\/api-keys/, "still on the page with the secret");
  assert.equal(await page.getByRole("table").count(), 0, "no list of keys the ended session cannot read");
  await watch.check("api-keys-own-rolled-now");
  // Left without Done: the next page's first call finds the session ended and goes to sign-in.
  watch.expectLeavingAnswer(401, /\/v1\/candidates\?/);
  await nav(page, "Candidates");
  await heading(page, "Sign in to the dashboard");
  await context.close();
});
