/**
 * The overview: this month's counts and exact amounts per status (UTC month, as the API sums them),
 * and what needs attention: failing webhook endpoints and OPEN candidates about to time out. Each
 * part shows only if the session may read it.
 */
import { api, ok, type Models } from "../api";
import { useLoad } from "../load";
import { useCan, useSession } from "../session";
import { ALL_PERMISSIONS } from "./api-keys/permissions";
import { ErrorNote, Loading } from "../components/notes";
import { Page } from "../components/page";
import { Time } from "../components/values";
import { BASE } from "../paths";
import { candidatesHref } from "./candidates/filters";
import { currentMonth, monthDays, monthName, monthRange } from "./billing/month";
import { FailingEndpoints } from "./overview/failing-endpoints";
import { TimingOut } from "./overview/timing-out";

/** The characters of the longest amount a card shows in half a phone's width. */
const WIDE_AMOUNT = 12;

export function Overview() {
  const can = useCan();
  const { permissions, api_key: key } = useSession();
  const parts = [can("billing:read"), can("webhooks:read"), can("candidates:read")];
  return (
    <Page title="Overview">
      {!parts.some(Boolean) && (
        <p class="notice">
          Nothing the overview shows is readable with this session: it needs billing:read, webhooks:read or
          candidates:read, and this session has {permissions.length ? permissions.join(", ") : "no permissions"}. Sign
          in with a key that has more to see it.
        </p>
      )}
      {parts.some(Boolean) && key && permissions.length < ALL_PERMISSIONS.length && (
        <p class="muted">
          Signed in with the key “{key.name}”, which may: {permissions.join(", ")}. Pages it may not read are left out.
        </p>
      )}
      {parts[0] && <ThisMonth />}
      {(parts[1] || parts[2]) && <h2>Needs attention</h2>}
      {parts[1] && <FailingEndpoints />}
      {parts[2] && <TimingOut />}
    </Page>
  );
}

type Summary = Models["Summary"];
const STATUSES = ["OPEN", "PENDING", "CONFIRMED", "FAILED"] as const;

function ThisMonth() {
  const month = currentMonth();
  const days = monthDays(month);
  const loaded = useLoad(
    () => ok(api.GET("/v1/summary", { params: { query: monthRange(month) } })) as Promise<Summary>,
    [month],
  );
  const name = monthName(month);
  const summary = loaded.data;
  return (
    <section aria-labelledby="h-month">
      <h2 id="h-month">This month: {name} (UTC)</h2>
      <ErrorNote error={loaded.error} />
      {!summary ? (
        !loaded.error && <Loading />
      ) : (
        <>
          {/* An amount too long for half a phone's width gives each card a row: never cut, never broken. */}
          <div
            class={
              STATUSES.some((s) => summary[s].amount.length > WIDE_AMOUNT) ? "grid stats wide-amounts" : "grid stats"
            }
          >
            {STATUSES.map((status) => (
              <a key={status} class="stat stat-link" href={candidatesHref({ status, ...days })}>
                <span class={`badge status-${status.toLowerCase()}`}>{status}</span>
                <span class="value">{summary[status].count}</span>
                <span class="muted">
                  amount <span class="amount">{summary[status].amount}</span>
                </span>
                {status === "PENDING" && (
                  <span class="muted">
                    scheduled to confirm: {summary.PENDING.scheduled_confirmed.count} (
                    <span class="amount">{summary.PENDING.scheduled_confirmed.amount}</span>)
                  </span>
                )}
              </a>
            ))}
          </div>
          <p class="muted">
            Candidates whose current status began this month, exact as of <Time iso={summary.as_of} />.{" "}
            <a href={`${BASE}/billing`}>Billing by customer</a>
          </p>
        </>
      )}
    </section>
  );
}
