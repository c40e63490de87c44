/**
 * The list's `activity_ends_gte` / `activity_ends_lt` filters: candidates by when their activity
 * window ends (`activity_ends_at`, the fulfilment or resolution instant once there is one), exact
 * to the millisecond at the request's instant, with every other filter, the cursor and the export.
 */
import { describe, expect, it } from "vitest";
import { runDurableObjectAlarm } from "cloudflare:test";
import { call, client, contract, createAccount, freshAlias, objectOf, okBody, type TestAccount } from "../support/api";
import { iso, useClock } from "../support/clock";

async function candidate(account: TestAccount, activitySeconds: number, customer = "c", label = "ends") {
  const alias = freshAlias(label);
  const created = okBody(
    await client(account).post("/v1/candidates", {
      customer_uuid: customer,
      candidate_alias: alias,
      contract: contract({ activity_window: activitySeconds }),
      metadata: { window: String(activitySeconds) },
    }),
  );
  return { alias, endsAt: Date.parse(created.activity_ends_at) };
}

const listed = async (account: TestAccount, query: string) =>
  okBody(await client(account).get(`/v1/candidates?${query}`)).data.map((c) => c.candidate_alias);

describe("GET /v1/candidates?activity_ends_gte=&activity_ends_lt=", () => {
  it("keeps exactly the candidates whose activity window ends in the range, at the request's instant", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const hour = await candidate(account, 3600);
    const twoHours = await candidate(account, 7200, "d");
    const fulfilled = await candidate(account, 7200);
    const voided = await candidate(account, 7200);
    await candidate(other, 3600); // another account's: never listed
    clock.set(t0 + 60_000);
    await client(account).post("/v1/events", { candidate_alias: fulfilled.alias, type: "purchase", value: 500 });
    await client(account).post(`/v1/candidates/${voided.alias}/resolve`, { outcome: "FAILED" });
    const minute = t0 + 60_000; // fulfilled's and voided's activity_ends_at now

    const range = (gte?: number, lt?: number) =>
      [gte === undefined ? "" : `activity_ends_gte=${iso(gte)}`, lt === undefined ? "" : `activity_ends_lt=${iso(lt)}`]
        .filter(Boolean)
        .join("&");
    // Newest first, as every list.
    expect(await listed(account, range(t0, t0 + 86_400_000))).toEqual(
      [voided, fulfilled, twoHours, hour].map((c) => c.alias),
    );
    expect(await listed(account, range(minute, minute + 1))).toEqual([voided.alias, fulfilled.alias]);
    expect(await listed(account, range(hour.endsAt, hour.endsAt + 1))).toEqual([hour.alias]);
    expect(await listed(account, range(undefined, hour.endsAt))).toEqual([voided.alias, fulfilled.alias]);
    expect(await listed(account, range(hour.endsAt + 1))).toEqual([twoHours.alias]);
    // What times out within the next two hours unless fulfilled: OPEN, ending in the range.
    const timingOut = `status=OPEN&${range(clock.now(), clock.now() + 7_200_000)}`;
    expect(await listed(account, timingOut)).toEqual([twoHours.alias, hour.alias]);
    expect(await listed(account, `${timingOut}&customer_uuid=d`)).toEqual([twoHours.alias]);
    expect(await listed(account, `${timingOut}&metadata[window]=3600`)).toEqual([hour.alias]);
    expect(await listed(account, `${timingOut}&candidate_alias_prefix=${hour.alias}`)).toEqual([hour.alias]);
    expect(await listed(account, `status=PENDING&${range(minute, minute + 1)}`)).toEqual([fulfilled.alias]);
    expect(await listed(account, `status=FAILED&${range(minute, minute + 1)}`)).toEqual([voided.alias]);
    // Paged with the cursor.
    const first = okBody(await client(account).get(`/v1/candidates?${timingOut}&limit=1`));
    expect(first.data.map((c) => c.candidate_alias)).toEqual([twoHours.alias]);
    expect(await listed(account, `${timingOut}&limit=1&after=${first.next_cursor}`)).toEqual([hour.alias]);

    // At the hour's end, before its alarm has run: no longer OPEN, though its row still says so.
    clock.set(hour.endsAt);
    for (const stage of ["before the alarm", "after the alarm"]) {
      expect(await listed(account, `status=OPEN&${range(t0, t0 + 86_400_000)}`), stage).toEqual([twoHours.alias]);
      expect(await listed(account, `status=PENDING&${range(hour.endsAt, hour.endsAt + 1)}`), stage).toEqual([
        hour.alias,
      ]);
      await runDurableObjectAlarm(objectOf(hour.alias));
    }

    // The export selects what the list does.
    const csv = await call<string>("GET", `/v1/candidates/export?${timingOut}`, { token: account.token });
    expect(csv.status).toBe(200);
    expect(
      csv.body
        .trim()
        .split("\r\n")
        .slice(1)
        .map((line) => line.split(",")[0]),
    ).toEqual([twoHours.alias]);
  });

  it("refuses an instant it cannot read, or a range that ends before it begins, at its parameter", async () => {
    const account = await createAccount();
    const api = client(account).raw;
    for (const [query, path] of [
      ["activity_ends_gte=soon", "activity_ends_gte"],
      ["activity_ends_lt=2026-13-01T00:00:00Z", "activity_ends_lt"],
      ["activity_ends_gte=2026-11-02T00:00:00Z&activity_ends_lt=2026-11-01T00:00:00Z", "activity_ends_lt"],
      ["activity_ends_gte=P&activity_ends_lt=OPEN", "activity_ends_gte,activity_ends_lt"],
    ]) {
      for (const route of ["/v1/candidates", "/v1/candidates/export"]) {
        const res = await api.get(`${route}?${query}`);
        expect(res.status, `${route}?${query}`).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_ERROR");
        expect(res.body.error.details?.map((d: { path: string }) => d.path).join()).toEqual(path);
      }
    }
    // An empty range is no mistake: gte = lt selects nothing.
    expect(
      await listed(account, "activity_ends_gte=2026-11-01T00:00:00Z&activity_ends_lt=2026-11-01T00:00:00Z"),
    ).toEqual([]);
  });
});
