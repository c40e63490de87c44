/**
 * The month per customer: a page of 100 customers at a time (the API's order, by customer_uuid),
 * each a link to that customer's candidates; and the whole month's rows as a CSV download.
 */
import { api, client, ok, type Models } from "../../api";
import { useLoad } from "../../load";
import { ErrorNote, Loading } from "../../components/notes";
import { Pager, useCursor } from "../../components/pager";
import { customersCsv, saveFile } from "./csv";
import { monthDays, monthRange } from "./month";
import { useCall } from "../../components/use-call";
import { TableWrap } from "../../components/table-wrap";

type Row = Models["CustomerSummary"];
const LIMIT = 100;
const STATUSES = ["OPEN", "PENDING", "CONFIRMED", "FAILED"] as const;

/** The customer's candidates the row counts: those whose status began in `month`. */
const candidatesOf = (customer: string, month: string) =>
  `/dashboard/candidates?${new URLSearchParams({ customer_uuid: customer, ...monthDays(month) })}`;

export function Customers({ month }: { month: string }) {
  const cursor = useCursor();
  const page = useLoad(async () => {
    const answer = await ok(
      api.GET("/v1/summary", {
        params: { query: { ...monthRange(month), group_by: "customer_uuid", after: cursor.after, limit: LIMIT } },
      }),
    );
    return answer as { data: Row[]; next_cursor: string | null };
  }, [month, cursor.after]);
  return (
    <section aria-labelledby="per-customer">
      <div class="page-head">
        <h2 id="per-customer">Per customer</h2>
        {page.data && (page.data.data.length > 0 || cursor.hasPrevious) && <DownloadCsv month={month} />}
      </div>
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data && page.data.data.length === 0 && (
        <p class="muted">
          {cursor.hasPrevious
            ? "No more customers on this page."
            : "No customer has candidates whose status began this month."}
        </p>
      )}
      {page.data && page.data.data.length > 0 && (
        <>
          <TableWrap label="Totals per customer" busy={page.loading}>
            <table class="customers">
              <thead>
                <tr>
                  <th scope="col" rowSpan={2}>
                    Customer
                  </th>
                  {STATUSES.map((s) => (
                    <th key={s} scope="colgroup" colSpan={s === "PENDING" ? 3 : 2} class="group">
                      {s}
                    </th>
                  ))}
                </tr>
                <tr>
                  {STATUSES.flatMap((s) => [
                    <th key={`${s}-c`} scope="col" class="num group">
                      Count
                    </th>,
                    <th key={`${s}-a`} scope="col" class="num">
                      Amount
                    </th>,
                    ...(s === "PENDING"
                      ? [
                          <th key="sched" scope="col" class="num">
                            Scheduled CONFIRMED
                          </th>,
                        ]
                      : []),
                  ])}
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((row) => (
                  <CustomerRow key={row.customer_uuid} row={row} month={month} />
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
      <Pager cursor={cursor} next={page.data?.next_cursor ?? null} loading={page.loading} />
    </section>
  );
}

function CustomerRow({ row, month }: { row: Row; month: string }) {
  const scheduled = row.PENDING.scheduled_confirmed;
  return (
    <tr>
      <th scope="row" class="mono">
        <a href={candidatesOf(row.customer_uuid, month)}>{row.customer_uuid}</a>
      </th>
      {STATUSES.flatMap((s) => [
        <td key={`${s}-c`} class="num group">
          {row[s].count}
        </td>,
        <td key={`${s}-a`} class="num mono amount">
          {row[s].amount}
        </td>,
        ...(s === "PENDING"
          ? [
              <td key="sched" class="num mono amount">
                {scheduled.count} · {scheduled.amount}
              </td>,
            ]
          : []),
      ])}
    </tr>
  );
}

/** Every customer of the month (all pages), as a CSV file made from the API's exact strings. */
function DownloadCsv({ month }: { month: string }) {
  const { busy, error, run } = useCall();
  // Left focusable while it works (aria-disabled): a disabled button would drop the focus.
  const download = () =>
    run(
      async () => {
        const rows: Row[] = [];
        for await (const row of client.summaryByCustomer({ ...monthRange(month), limit: LIMIT })) rows.push(row);
        saveFile(`billing-${month}-per-customer.csv`, customersCsv(rows));
      },
      { exclusive: true },
    );
  return (
    <div class="csv-action">
      <button type="button" class="secondary" aria-disabled={busy || undefined} onClick={() => void download()}>
        {busy ? "Preparing CSV…" : "Download CSV"}
      </button>
      <ErrorNote error={error} />
    </div>
  );
}
