/**
 * `npm run test:docs`: the API reference in a real browser, as a developer meets it. Starts
 * `npm run dev`, opens /docs in Chromium (Debian's `chromium`, driven by playwright-core; set
 * CHROMIUM_PATH for another), checks every operation is listed and nothing is fetched from
 * anywhere but this service, creates a schema through the page's "Test Request" with the
 * development token, and keeps a screenshot in test/artifacts/.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { after, test } from "node:test";
import type { Browser } from "playwright-core";
import { DevServer } from "./lib/dev-server.ts";
import { launchChromium } from "./lib/chromium.ts";

const ARTIFACTS = "test/artifacts";
const dev = new DevServer();
let browser: Browser | undefined;

after(async () => {
  await browser?.close();
  await dev.cleanUp();
});

test("the API reference lists every operation and sends a real request from the page", async () => {
  browser = await launchChromium();
  const token = await dev.start();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const elsewhere: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(dev.url) && !request.url().startsWith("data:")) elsewhere.push(request.url());
  });

  await page.goto(`${dev.url}/docs`, { waitUntil: "networkidle" });
  await page.getByText("Create a schema", { exact: true }).first().waitFor();
  // Every operation of the OpenAPI document is in the reference's sidebar, each group opened.
  const document = JSON.parse(readFileSync("clients/typescript/openapi.json", "utf8")) as {
    paths: Record<string, Record<string, { summary: string; tags: string[] }>>;
  };
  const operations = Object.values(document.paths).flatMap((byMethod) => Object.values(byMethod));
  const summaries = operations.map((op) => op.summary);
  assert.ok(summaries.length > 20, "the document lists the API's operations");
  // Every group the document has, opened (the first is open already).
  for (const tag of new Set(operations.flatMap((op) => op.tags))) {
    const open = page.getByRole("button", { name: `Open Group - ${tag}` });
    if ((await open.count()) > 0) await open.first().click();
  }
  const sidebar = await page.locator("body").innerText();
  for (const summary of summaries) assert.ok(sidebar.includes(summary), `operation "${summary}" in the reference`);

  // The Authentication card's header is whole at common widths: "Required" not clipped under
  // the scheme picker (our CSS in src/routes/docs.ts wraps the picker).
  for (const width of [1024, 1280, 1400]) {
    await page.setViewportSize({ width, height: 1000 });
    const required = page.getByTestId("auth-indicator").first();
    await required.waitFor();
    const clipped = await required.evaluate((indicator) => {
      const shown = indicator.getBoundingClientRect();
      const header = indicator.closest("button")!.getBoundingClientRect();
      const picker = indicator.closest("button")!.nextElementSibling?.getBoundingClientRect();
      const overlapsPicker =
        picker && picker.top < shown.bottom && picker.left < shown.right && picker.right > shown.left;
      return shown.right > header.right || Boolean(overlapsPicker);
    });
    assert.equal(clipped, false, `"Required" shown whole at ${width} px`);
  }
  await page.setViewportSize({ width: 1400, height: 1000 });

  // "Test Request" on "Create a schema", with the token pasted in: a real 201 from this service.
  await page.getByPlaceholder("Token").first().fill(token);
  await page
    .getByRole("button", { name: /Test Request.*post \/v1\/schemas/ })
    .first()
    .click();
  const created = page.waitForResponse(
    (response) => response.url() === `${dev.url}/v1/schemas` && response.request().method() === "POST",
  );
  await page.getByRole("button", { name: "Send" }).first().click();
  const response = await created;
  assert.equal(response.status(), 201);
  const schema = (await response.json()) as { id: string };
  await page.getByText("201 Created").first().waitFor();
  // A second try from the page is a new request: no example (an Idempotency-Key) makes it fail.
  const again = page.waitForResponse(
    (response) => response.url() === `${dev.url}/v1/schemas` && response.request().method() === "POST",
  );
  await page.getByRole("button", { name: "Send" }).first().click();
  assert.equal((await again).status(), 201);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/docs-create-schema.png` });

  // The schema the page created is the account's.
  const listed = (await (
    await fetch(`${dev.url}/v1/schemas/${schema.id}`, { headers: { Authorization: `Bearer ${token}` } })
  ).json()) as { id: string };
  assert.equal(listed.id, schema.id);
  assert.deepEqual(elsewhere, [], "the reference fetched nothing but this service");

  await page.goto(`${dev.url}/docs/errors/VALIDATION_ERROR`);
  // The error page renders its code spans: the field a VALIDATION_ERROR explains is code.
  await page.locator("code", { hasText: "details" }).first().waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/docs-error-page.png` });
});
