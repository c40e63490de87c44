/**
 * Billing reads, the list's filters and the summary (docs/billing.md): what became billable in a
 * period, and the exact amount, as of the request's instant whether or not an alarm has run.
 */
import { describe, expect, it } from "vitest";
import { runDurableObjectAlarm } from "cloudflare:test";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  objectOf,
  okBody,
  type Schemas,
  type TestAccount,
} from "../support/api";
import { iso, useClock } from "../support/clock";

/** Exact decimal sum of JSON number literals, written independently of the service (scaled BigInts). */
function decimalSum(literals: string[]): string {
  const SCALE = 40;
  const total = literals.reduce((sum, literal) => {
    const [mantissa, exponent = "0"] = literal.toLowerCase().split("e");
    const [whole, fraction = ""] = mantissa.split(".");
    const shift = SCALE - fraction.length + Number(exponent);
    const digits = BigInt(whole + fraction);
    return sum + (shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift));
  }, 0n);
  const text = total.toString().padStart(SCALE + 1, "0");
  const fraction = text.slice(-SCALE).replace(/0+$/, "");
  return text.slice(0, -SCALE) + (fraction ? `.${fraction}` : "");
}

async function candidate(
  account: TestAccount,
  price: number | string,
  over: Record<string, unknown> = {},
  customer = "c",
) {
  const alias = freshAlias("bill");
  const body = JSON.stringify({
    customer_uuid: customer,
    candidate_alias: alias,
    contract: contract({ price: 0, ...over }),
  }).replace('"price":0', `"price":${price}`);
  const res = await call("POST", "/v1/candidates", {
    token: account.token,
    raw: body,
    headers: { "Content-Type": "application/json" },
  });
  expectStatus(res, 201, JSON.stringify(res.body));
  return alias;
}

type Summary = Schemas["Summary"];
/** The body of GET /v1/summary with `query` (without its "?"); `group_by` decides which of its two shapes it is. */
const summaryBody = async (account: TestAccount, query?: string) =>
  okBody(await client(account).get(query === undefined ? "/v1/summary" : `/v1/summary?${query}`));
/** The account's totals: the answer without `group_by`. */
const summary = async (account: TestAccount, query?: string) => (await summaryBody(account, query)) as Summary;
/** The totals per customer: the answer to `group_by=customer_uuid`. */
const perCustomer = async (account: TestAccount, query: string) =>
  (await summaryBody(account, query)) as Exclude<Awaited<ReturnType<typeof summaryBody>>, Summary>;
const listed = async (account: TestAccount, query: string) =>
  okBody(await client(account).get(`/v1/candidates?${query}`)).data.map((c) => c.candidate_alias);

describe("GET /v1/summary", () => {
  it("sums prices exactly, per status, with PENDING split by scheduled outcome", async () => {
    const account = await createAccount();
    const prices = ["0.1", "0.2", "1e-7", "12345678.9", "0.000123456789012345", "1000000000000", "49.5", "0"];
    for (const p of prices) await candidate(account, p);
    const pendingConfirmed = await candidate(account, "0.3");
    await client(account).post("/v1/events", { candidate_alias: pendingConfirmed, type: "purchase", value: 500 });
    const pendingFailed = await candidate(account, "2.25", { activity_window: 0.001 });
    await new Promise((r) => setTimeout(r, 5)); // its activity window ends: PENDING, scheduled FAILED
    const body = await summary(account);
    expect(body).toEqual({
      as_of: expect.any(String),
      customer_uuid: null,
      status_since_gte: null,
      status_since_lt: null,
      OPEN: { count: prices.length, amount: decimalSum(prices) },
      PENDING: { count: 2, amount: "2.55", scheduled_confirmed: { count: 1, amount: "0.3" } },
      CONFIRMED: { count: 0, amount: "0" },
      FAILED: { count: 0, amount: "0" },
    });
    expect(body.OPEN.amount).toBe("1000012345728.700123556789012345");
    void pendingFailed;
  });

  it("is exact at the instant, before and after the alarm: t-1 ms and t of the review's end", async () => {
    const account = await createAccount();
    const clock = useClock();
    const alias = await candidate(account, "10.5", { review_window: 60 });
    const hit = okBody(
      await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 }),
    );
    const t = Date.parse(hit.candidate.review_ends_at!);
    const month = `status_since_gte=${iso(t - 1000)}&status_since_lt=${iso(t + 1000)}`;

    clock.set(t - 1);
    expect((await summary(account)).PENDING).toEqual({
      count: 1,
      amount: "10.5",
      scheduled_confirmed: { count: 1, amount: "10.5" },
    });
    expect((await summary(account, month)).CONFIRMED).toEqual({ count: 0, amount: "0" });
    expect(await listed(account, `status=CONFIRMED&${month}`)).toEqual([]);
    expect(
      await listed(
        account,
        `status=PENDING&status_since_gte=${iso(t - 60_000)}&status_since_lt=${iso(t - 60_000 + 1)}`,
      ),
    ).toEqual([alias]);

    clock.set(t); // the alarm has not run: the stored status still says PENDING
    for (const stage of ["before the alarm", "after the alarm"]) {
      const ranged = await summary(account, month);
      expect(ranged.CONFIRMED, stage).toEqual({ count: 1, amount: "10.5" });
      expect(ranged.PENDING.count, stage).toBe(0);
      expect(await listed(account, `status=CONFIRMED&${month}`), stage).toEqual([alias]);
      expect(await listed(account, `status=CONFIRMED&status_since_gte=${iso(t + 1)}`), stage).toEqual([]);
      expect(await listed(account, `status=CONFIRMED&status_since_lt=${iso(t)}`), stage).toEqual([]);
      expect(await listed(account, `status=PENDING`), stage).toEqual([]);
      expect((await summary(account)).CONFIRMED, stage).toEqual({ count: 1, amount: "10.5" });
      await runDurableObjectAlarm(objectOf(alias));
    }
  });

  it("stays exact when an alarm has already settled a status the request's instant is before", async () => {
    const account = await createAccount();
    const clock = useClock();
    const alias = await candidate(account, "7", { review_window: 60 });
    const hit = okBody(
      await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 500 }),
    );
    const end = Date.parse(hit.candidate.review_ends_at!);
    clock.set(end);
    await runDurableObjectAlarm(objectOf(alias)); // CONFIRMED is stored...
    clock.set(end - 1); // ...and a request's instant falls just before it (clocks a moment apart)
    expect(await listed(account, "status=PENDING")).toEqual([alias]);
    expect(await listed(account, "status=CONFIRMED")).toEqual([]);
    const now = await summary(account);
    expect([now.PENDING.count, now.CONFIRMED.count]).toEqual([1, 0]);
    expect((await summary(account, `status_since_gte=${iso(end - 60_000)}`)).PENDING.count).toBe(1);
  });

  it("filters by customer, and groups by customer in pages", async () => {
    const account = await createAccount();
    const customers = ["acme", "bravo", "charlie", "délta", "echo"];
    for (const [i, customer] of customers.entries()) {
      for (let j = 0; j <= i; j++) await candidate(account, "1.1", {}, customer);
    }
    expect((await summary(account, "customer_uuid=charlie")).OPEN).toEqual({ count: 3, amount: "3.3" });
    expect((await summary(account, "customer_uuid=nobody")).OPEN).toEqual({ count: 0, amount: "0" });
    const first = await perCustomer(account, "group_by=customer_uuid&limit=2");
    expect(first.data.map((c) => [c.customer_uuid, c.OPEN.count, c.OPEN.amount])).toEqual([
      ["acme", 1, "1.1"],
      ["bravo", 2, "2.2"],
    ]);
    expect(first.next_cursor).toBe("bravo");
    const rest = await perCustomer(account, `group_by=customer_uuid&limit=10&after=${first.next_cursor}`);
    expect(rest.data.map((c) => c.customer_uuid)).toEqual(["charlie", "délta", "echo"]);
    expect(rest.next_cursor).toBeNull();
    expect(rest.data[2]).toMatchObject({
      OPEN: { count: 5, amount: "5.5" },
      PENDING: { count: 0, scheduled_confirmed: { count: 0 } },
    });
  });

  it("groups a range by customer, lagging candidates included", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    await candidate(account, "1", { activity_window: 10, review_window: 0, timeout_outcome: "confirm" }, "zulu");
    await candidate(account, "2", { activity_window: 10, review_window: 0, timeout_outcome: "confirm" }, "alpha");
    clock.set(t0 + 20_000); // both CONFIRMED now; no alarm has run
    const body = await perCustomer(account, `group_by=customer_uuid&status_since_gte=${iso(t0 + 5_000)}`);
    expect(body.data.map((c) => [c.customer_uuid, c.CONFIRMED.amount])).toEqual([
      ["alpha", "2"],
      ["zulu", "1"],
    ]);
  });

  it("shows only the account's own candidates", async () => {
    const owner = await createAccount();
    await candidate(owner, "99", {}, "shared-customer");
    const other = await createAccount();
    expect((await summary(other)).OPEN).toEqual({ count: 0, amount: "0" });
    expect((await summary(other, "customer_uuid=shared-customer")).OPEN).toEqual({ count: 0, amount: "0" });
    expect((await perCustomer(other, "group_by=customer_uuid")).data).toEqual([]);
  });

  it("refuses bad parameters at their path", async () => {
    const api = client(await createAccount());
    const cases: [string, string][] = [
      ["status_since_gte=yesterday", "status_since_gte"],
      ["status_since_lt=2026-11-01", "status_since_lt"],
      ["status_since_gte=2026-13-01T00:00:00Z", "status_since_gte"],
      ["group_by=customer", "group_by"],
      ["after=abc", "after"],
      ["limit=5", "limit"],
      ["group_by=customer_uuid&limit=0", "limit"],
      ["customer_uuid=", "customer_uuid"],
      ["currency=eur", "currency"],
    ];
    for (const [query, path] of cases) {
      const res = await api.get(`/v1/summary?${query}`);
      expectStatus(res, 400, query);
      expect(
        res.body.error.details?.map((d) => d.path),
        query,
      ).toContain(path);
    }
    const list = await api.get("/v1/candidates?status_since_gte=soon");
    expectStatus(list, 400);
    expect(list.body.error.details?.[0].path).toBe("status_since_gte");
    // Both ends unreadable: each refused at its path, and nothing compares them.
    for (const route of ["/v1/candidates", "/v1/candidates/export", "/v1/summary"]) {
      const both = await api.raw.get(`${route}?status_since_gte=x&status_since_lt=2026-02-30T00:00:00Z`);
      expect(both.status, route).toBe(400);
      expect(both.body.error.details?.map((d: { path: string }) => d.path).sort(), route).toEqual([
        "status_since_gte",
        "status_since_lt",
      ]);
    }
  });
});

describe("list filters status_since_gte and status_since_lt", () => {
  it("round bounds finer than a millisecond up, as instants are whole milliseconds", async () => {
    const account = await createAccount();
    const alias = await candidate(account, "1");
    const since = okBody(await client(account).get(`/v1/candidates/${alias}`)).status_since as string; // ....sssZ
    const finer = since.replace("Z", "5Z"); // half a millisecond later
    expect(await listed(account, `status_since_lt=${finer}`)).toEqual([alias]);
    expect(await listed(account, `status_since_gte=${finer}`)).toEqual([]);
  });

  it("refuse a bound that rounds or shifts outside years 0000 to 9999, which no answer could write", async () => {
    const account = await createAccount();
    for (const path of ["/v1/candidates", "/v1/summary", "/v1/candidates/export"]) {
      for (const bound of ["9999-12-31T23:59:59.9999Z", "9999-12-31T23:00:00-05:00", "0000-01-01T00:00:00%2B01:00"]) {
        const res = await call("GET", `${path}?status_since_lt=${bound}`, { token: account.token });
        expectStatus(res, 400, `${path} ${bound}`);
        expect(res.body.error.details).toEqual([
          {
            path: "status_since_lt",
            message: expect.stringMatching(/^must be an instant from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z/),
          },
        ]);
      }
      const edge = await call("GET", `${path}?status_since_lt=9999-12-31T23:59:59.999Z`, { token: account.token });
      expectStatus(edge, 200, path);
    }
    const summary = await client(account).get("/v1/summary?status_since_lt=9999-12-31T23:59:59.999Z");
    expect(JSON.stringify(okBody(summary))).toContain("9999-12-31T23:59:59.999Z");
  });

  it("combine with status, customer and the cursor, newest first", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const aliases: string[] = [];
    for (let i = 0; i < 6; i++) {
      clock.set(t0 + i * 1000);
      aliases.push(await candidate(account, "1", {}, i % 2 ? "odd" : "even"));
    }
    const window = `status_since_gte=${iso(t0 + 1000)}&status_since_lt=${iso(t0 + 5000)}`;
    expect(await listed(account, window)).toEqual([aliases[4], aliases[3], aliases[2], aliases[1]]);
    expect(await listed(account, `status=OPEN&${window}&customer_uuid=odd`)).toEqual([aliases[3], aliases[1]]);
    const page = okBody(await client(account).get(`/v1/candidates?${window}&limit=3`));
    expect(page.data).toHaveLength(3);
    expect(await listed(account, `${window}&after=${page.next_cursor}`)).toEqual([aliases[1]]);
  });
});
