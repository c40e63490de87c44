/// <reference lib="dom" />
/**
 * What every dashboard page must hold in a real browser, checked as a person's journey passes
 * through it: no console error and no failed script, no request off the service's origin, no
 * serious or critical axe-core violation, every control reachable with Tab, every table within its
 * frame at 1280 px and nothing wider than the screen at 390, and a screenshot at each width
 * (test/artifacts/, git-ignored) to look at.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";

const ARTIFACTS = "test/artifacts/dashboard";
const AXE = readFileSync("node_modules/axe-core/axe.min.js", "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Chromium's own line for every answer of 400 or more, which a page that shows API errors must see. */
const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (\d{3})/;

export class PageWatch {
  private readonly consoleLines: { page: string; text: string; url: string }[] = [];
  readonly offOrigin: string[] = [];
  readonly requested: string[] = [];
  /** Error answers whose bodies are being read. */
  private readonly reading: Promise<void>[] = [];
  /** The API's error answers the journey caused on purpose (a 400, a 403, a 404 it then shows), in the documented shape. */
  readonly apiErrors: { url: string; status: number; code: string }[] = [];

  /** Answers the journey causes on purpose where the page leaves before their bodies can be read. */
  private readonly leftBehind: { status: number; url: RegExp }[] = [];

  readonly page: Page;
  readonly origin: string;

  constructor(page: Page, origin: string) {
    this.page = page;
    this.origin = origin;
    page.on("console", (message) => {
      if (message.type() === "error")
        this.consoleLines.push({ page: page.url(), text: message.text(), url: message.location().url });
    });
    page.on("pageerror", (error) =>
      this.consoleLines.push({ page: page.url(), text: `uncaught: ${error.message}`, url: "" }),
    );
    page.on("response", (response) => {
      const url = response.url();
      if (response.status() < 400 || response.status() >= 500 || !url.startsWith(`${origin}/`)) return;
      // Read before the next check looks at the console (check() waits for every one of these).
      this.reading.push(
        response.json().then(
          (body: { error?: { code?: string; status?: number } } | null) => {
            if (body?.error?.code && body.error.status === response.status())
              this.apiErrors.push({ url, status: response.status(), code: body.error.code });
          },
          () => undefined,
        ),
      );
    });
    page.on("request", (request) => {
      const url = request.url();
      this.requested.push(url);
      if (!url.startsWith(`${origin}/`) && !url.startsWith("data:") && !url.startsWith("blob:"))
        this.offOrigin.push(url);
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  }

  /**
   * The console's errors, but for Chromium's line for each 4xx answer of this service's API in its
   * error shape (recorded as it came): what a page shows a person, not a fault of the page.
   */
  get consoleErrors(): string[] {
    return this.consoleLines
      .filter(({ text, url }) => {
        const status = Number(FAILED_LOAD.exec(text)?.[1] ?? 0);
        if (status < 400 || status >= 500) return true;
        const expected = [
          ...this.apiErrors.filter((e) => e.url === url),
          ...this.leftBehind.filter((e) => e.url.test(url)),
        ];
        return !expected.some((e) => e.status === status);
      })
      .map(({ page, text, url }) => `${page}: ${text}${url ? ` (${url})` : ""}`);
  }

  /**
   * A 4xx the journey causes next on purpose, after which the page leaves at once (a 401 that ends
   * the session sends it to sign-in), so its body may be gone before it is read.
   */
  expectLeavingAnswer(status: number, url: RegExp) {
    this.leftBehind.push({ status, url });
  }

  /** Everything a page must hold, checked on the page shown now; `name` names its screenshots. */
  async check(name: string) {
    const { page } = this;
    await page.waitForLoadState("networkidle");
    await Promise.all(this.reading);
    assert.deepEqual(this.consoleErrors, [], `${name}: no console error`);
    assert.deepEqual(this.offOrigin, [], `${name}: no request off the origin`);
    await this.axe(name);
    await this.keyboard(name);
    await page.screenshot({ path: `${ARTIFACTS}/${name}-1280.png`, fullPage: true });
    // At 1280 px every table fits its frame: a long value wraps rather than push columns out of view.
    const scrolled = await page.$$eval(".table-wrap", (wraps) =>
      wraps.filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => `${w.scrollWidth} > ${w.clientWidth}`),
    );
    assert.deepEqual(scrolled, [], `${name}: every table fits a 1280 px window`);
    const wider = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(wider <= 1, `${name}: nothing wider than a 1280 px window (${wider} px over)`);
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 1, `${name}: nothing wider than a 390 px screen (${overflow} px over)`);
    await page.screenshot({ path: `${ARTIFACTS}/${name}-390.png`, fullPage: true });
    await page.setViewportSize(size);
  }

  /** axe-core, from npm, run in the page (evaluated by the browser's debugger, which the page's CSP does not govern). */
  private async axe(name: string) {
    const violations = await this.page.evaluate(async (source) => {
      if (!("axe" in window)) (0, eval)(source);
      const result = await (
        window as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }
      ).axe.run();
      return result.violations.map(({ id, impact, help, nodes }) => ({
        id,
        impact,
        help,
        nodes: nodes.map((n) => ({ target: n.target })),
      }));
    }, AXE);
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(
      serious.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      [],
      `${name}: no serious or critical accessibility violation`,
    );
  }

  /** Tab from the top of the page reaches every visible, enabled control, the skip link first. */
  private async keyboard(name: string) {
    const { page } = this;
    const controls = await page.evaluate(() => {
      const visible = (e: Element) => {
        const box = e.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility !== "hidden";
      };
      const all = [
        ...document.querySelectorAll<HTMLElement>(
          "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary",
        ),
      ]
        .filter(visible)
        // A radio group is one Tab stop (its checked radio; arrows move within it).
        .filter(
          (e) =>
            !(
              e instanceof HTMLInputElement &&
              e.type === "radio" &&
              !e.checked &&
              document.querySelector(`input[type=radio][name="${e.name}"]:checked`)
            ),
        );
      all.forEach((e, i) => e.setAttribute("data-tab-check", String(i)));
      // Tab from the top of the page: focus a mark placed first in it (removed after the first Tab).
      const start = document.createElement("span");
      start.tabIndex = -1;
      start.id = "tab-check-start";
      document.body.insertBefore(start, document.body.firstChild);
      start.focus();
      return all.length;
    });
    const reached = new Set<string>();
    let first: string | null = null;
    for (let i = 0; i < controls + 20 && reached.size < controls; i++) {
      await page.keyboard.press("Tab");
      const at = await page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        return active
          ? {
              id: active.getAttribute("data-tab-check"),
              text: active.textContent?.trim() || active.outerHTML.slice(0, 120),
              focusVisible: active.matches(":focus-visible, input[type=month], input[type=date]"),
            }
          : null;
      });
      if (!at?.id) continue;
      first ??= at.text;
      // (A month or date input's focus is on its parts, each highlighted as it is focused.)
      assert.ok(at.focusVisible, `${name}: the focused control shows its focus ("${at.text}")`);
      reached.add(at.id);
    }
    const missed = await page.evaluate(
      (reachedIds) =>
        [...document.querySelectorAll<HTMLElement>("[data-tab-check]")]
          .filter((e) => !reachedIds.includes(e.getAttribute("data-tab-check")!))
          .map((e) => e.outerHTML.slice(0, 120)),
      [...reached],
    );
    assert.deepEqual(missed, [], `${name}: every control reachable with Tab`);
    if (!name.startsWith("sign-in"))
      assert.equal(first, "Skip to content", `${name}: the first Tab stop skips to the content`);
    await page.evaluate(() => {
      document.querySelectorAll("[data-tab-check]").forEach((e) => e.removeAttribute("data-tab-check"));
      document.getElementById("tab-check-start")?.remove();
    });
  }
}
