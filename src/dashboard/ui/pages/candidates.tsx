/**
 * The candidates, newest first, 50 a page: filtered by status, customer, a status_since period,
 * metadata and the alias's beginning. The filters live in the address; the CSV export takes the same.
 */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../api";
import { useLoad } from "../load";
import { useCan } from "../session";
import { Empty, Loading } from "../components/notes";
import { Page, focusPageHeading } from "../components/page";
import { Pager, useCursor } from "../components/pager";
import { countOf, StatusBadge, Time } from "../components/values";
import { candidatePath } from "../paths";
import { apiQuery, candidatesHref, filterProblem, filtersFromQuery, isFiltered } from "./candidates/filters";
import { ExportButton } from "./candidates/export-button";
import { FIELD_PATHS, FilterForm } from "./candidates/filter-form";
import { GettingStarted } from "./candidates/getting-started";
import { NewCandidate } from "./forms/new-candidate";
import { FormError } from "./shared/form-error";
import { TableWrap } from "../components/table-wrap";

const LIMIT = 50;

export function Candidates() {
  const { query, route } = useLocation();
  const can = useCan();
  const filters = filtersFromQuery(query);
  const key = candidatesHref(filters);
  const cursor = useCursor();
  const problem = filterProblem(filters);
  const [creating, setCreating] = useState(false);
  const loaded = useLoad(
    () =>
      problem
        ? Promise.reject(problem)
        : can("candidates:read")
          ? ok(
              api.GET("/v1/candidates", {
                params: { query: { ...apiQuery(filters), limit: LIMIT, after: cursor.after } },
              }),
            )
          : Promise.resolve(null),
    [key, cursor.after],
  );

  if (!can("candidates:read")) {
    return (
      <Page title="Candidates">
        <p>This session lacks candidates:read, which listing candidates needs.</p>
      </Page>
    );
  }
  const page = loaded.data;
  const filtered = isFiltered(filters);
  return (
    <Page
      title="Candidates"
      actions={
        <>
          {can("candidates:write") && !creating && (
            <button type="button" onClick={() => setCreating(true)}>
              New candidate
            </button>
          )}
          <ExportButton class="secondary" query={apiQuery(filters)} file="candidates.csv">
            Download CSV{filtered ? " (filtered)" : ""}
          </ExportButton>
        </>
      }
    >
      {creating && <NewCandidate onCancel={() => (setCreating(false), focusPageHeading())} />}
      {/* Keyed by the address, its page included: Back, a link to other filters or a page of the list
          shows the filters that list was read with, not a draft left unapplied. */}
      <FilterForm
        key={`${key}|${cursor.after ?? ""}`}
        filters={filters}
        error={loaded.error}
        // The filters shown, applied again: read again (the address would not move), and any refusal said anew.
        onApply={(href) => (href === location.pathname + location.search ? loaded.reload() : route(href))}
      />
      <FormError error={loaded.error} paths={FIELD_PATHS} />
      {!page ? (
        !loaded.error && <Loading />
      ) : page.data.length === 0 ? (
        filtered || cursor.hasPrevious ? (
          <Empty title="No candidates match these filters">
            <p>
              Loosen a filter, or <a href={candidatesHref({})}>clear them all</a>.
            </p>
          </Empty>
        ) : (
          <GettingStarted onCandidatesPage />
        )
      ) : (
        <>
          <p class="muted" role="status">
            {countOf(page.data.length, "candidate")} on this page
            {page.next_cursor ? ", more on the next" : ""}; statuses exact at the moment of reading
            {loaded.loading ? " (reading…)" : ""}.
          </p>
          <TableWrap label="Candidates">
            <table class="compact">
              <thead>
                <tr>
                  <th scope="col">Alias</th>
                  <th scope="col">Customer</th>
                  <th scope="col">Status</th>
                  <th scope="col">Status since</th>
                  {/* Two lines: its badges are narrower than its name, and the list keeps its columns in view. */}
                  <th scope="col" class="two-lines">
                    Scheduled outcome
                  </th>
                  <th scope="col" class="num">
                    Price
                  </th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((c) => (
                  <tr key={c.id}>
                    <td class="alias">
                      <a class="mono" href={candidatePath(c.candidate_alias)}>
                        {c.candidate_alias}
                      </a>
                    </td>
                    <td class="mono wrap">{c.customer_uuid}</td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td>
                      <Time iso={c.status_since} />
                    </td>
                    <td>
                      {c.scheduled_outcome ? (
                        <StatusBadge status={c.scheduled_outcome} />
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                    {/* As the API wrote it: a JSON number of at most 15 significant digits prints back exactly. */}
                    <td class="num amount">{String(c.contract.price)}</td>
                    <td>
                      <Time iso={c.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
      <Pager cursor={cursor} next={page?.next_cursor ?? null} loading={loaded.loading} />
      <p class="muted small-text">
        The CSV holds every value exactly as stored. A spreadsheet may run a value that begins with =, +, - or @ (an
        alias, a customer or metadata your own users gave) as a formula: open files with values from people you do not
        trust as text.
      </p>
    </Page>
  );
}
