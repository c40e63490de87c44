/**
 * Billing for a month (UTC): the account's counts and exact amounts per status for the candidates
 * whose current status began in it, as bars and a table, then per customer, with CSV. The month
 * is in the address (`?month=YYYY-MM`), so a month's bill can be bookmarked and shared.
 */
import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { client } from "../api";
import { useLoad } from "../load";
import { useCan } from "../session";
import { Field } from "../components/fields";
import { Empty, ErrorNote, Loading } from "../components/notes";
import { Page } from "../components/page";
import { Time } from "../components/values";
import { Customers } from "./billing/customers";
import { ExportButton } from "./candidates/export-button";
import { currentMonth, FIRST_MONTH, isMonth, LAST_MONTH, monthName, monthRange, shiftMonth } from "./billing/month";
import { TotalsChart, TotalsTable } from "./billing/totals";

const PATH = "/dashboard/billing";

export function Billing() {
  const { query, route } = useLocation();
  const can = useCan();
  const asked = query.month;
  const month = isMonth(asked) ? asked : currentMonth();
  const go = (to: string) => isMonth(to) && route(`${PATH}?${new URLSearchParams({ month: to })}`);
  // What the picker holds while being typed in (a year typed digit by digit passes through 0002,
  // 0020...): it follows the address, but a half-typed month is not overwritten by a re-render.
  const [draft, setDraft] = useState(month);
  const [shown, setShown] = useState(month);
  if (shown !== month) {
    setShown(month);
    setDraft(month);
  }
  if (!can("billing:read")) {
    return (
      <Page title="Billing">
        <p class="notice">
          This session cannot read billing: it needs the <code>billing:read</code> permission. Sign in with a key that
          holds it.
        </p>
      </Page>
    );
  }
  return (
    <Page title="Billing">
      <form class="month-picker" onSubmit={(e) => e.preventDefault()}>
        <Field id="month" label="Month (UTC)">
          <input
            id="month"
            type="month"
            min={FIRST_MONTH}
            max={LAST_MONTH}
            value={draft}
            required
            onInput={(e) => {
              setDraft(e.currentTarget.value);
              if (e.currentTarget.value !== month) go(e.currentTarget.value);
            }}
          />
        </Field>
        <button
          type="button"
          class="secondary"
          onClick={() => go(shiftMonth(month, -1))}
          disabled={month <= FIRST_MONTH}
        >
          ← Previous month
        </button>
        {/* No later month: a status begins now or before, so a month to come has none yet. */}
        <button
          type="button"
          class="secondary"
          onClick={() => go(shiftMonth(month, 1))}
          disabled={month >= currentMonth() || month >= LAST_MONTH}
        >
          Next month →
        </button>
        {month !== currentMonth() && (
          <button
            type="button"
            class="secondary"
            // It goes with the move: the month's field, which shows the month now, takes the focus.
            onClick={() => (go(currentMonth()), document.getElementById("month")?.focus())}
          >
            This month
          </button>
        )}
      </form>
      {asked !== undefined && asked !== month && (
        <p class="notice" role="status">
          “{asked}” is not a month from {FIRST_MONTH} to {LAST_MONTH} (YYYY-MM): showing this month instead.
        </p>
      )}
      <MonthSummary month={month} />
      <Customers month={month} />
    </Page>
  );
}

function MonthSummary({ month }: { month: string }) {
  const can = useCan();
  const range = monthRange(month);
  const summary = useLoad(() => client.summary(range), [month]);
  const name = monthName(month);
  const s = summary.data;
  const none = s && s.OPEN.count + s.PENDING.count + s.CONFIRMED.count + s.FAILED.count === 0;
  return (
    <section aria-labelledby="month-totals">
      <h2 id="month-totals">{name}</h2>
      <p>
        These are the candidates whose current status began in {name} (from <code>{range.status_since_gte}</code> up to,
        not including, <code>{range.status_since_lt}</code>): CONFIRMED is what became billable that month.
      </p>
      <ErrorNote error={summary.error} />
      {summary.loading && !s && <Loading />}
      {s && (
        <>
          <p class="muted">
            Exact as of <Time iso={s.as_of} /> <span class="mono">({s.as_of})</span>.
          </p>
          {can("candidates:read") && !none && (
            <div class="month-export">
              <ExportButton class="link" query={range}>
                Export this month’s candidates (CSV)
              </ExportButton>
            </div>
          )}
          {none ? (
            <Empty title={`No candidate’s status began in ${name}.`}>
              <p>
                Pick another month, or create candidates (<code>POST /v1/candidates</code>) and send their events (
                <code>POST /v1/events</code>): each counts in the month its status began.
              </p>
            </Empty>
          ) : (
            <div class="billing-totals" aria-busy={summary.loading}>
              <TotalsChart summary={s} month={name} />
              <TotalsTable summary={s} />
            </div>
          )}
        </>
      )}
    </section>
  );
}
