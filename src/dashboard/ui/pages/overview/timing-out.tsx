/**
 * OPEN candidates whose activity window ends within 24 hours, soonest first. The list filters on
 * the window's end; when more than a page of them end within 24 hours, the soonest are those
 * ending within a shorter horizon whose candidates fit in a page (found by halving), and the
 * panel says which.
 */
import { api, ok } from "../../api";
import { useLoad } from "../../load";
import { ErrorNote, Loading } from "../../components/notes";
import { Time } from "../../components/values";
import { candidatePath } from "../../paths";
import { candidatesHref } from "../candidates/filters";
import { GettingStarted } from "../candidates/getting-started";
import { TableWrap } from "../../components/table-wrap";

const PAGE = 100;
const HORIZON_MS = 24 * 3_600_000;
/** The search for a horizon that fits stops once this many fit. */
const ENOUGH = 20;

/** `signal`: the panel is gone (its page left); the search, which may take a dozen calls, stops. */
async function readTimingOut(signal: AbortSignal) {
  const now = Date.now();
  const endingWithin = (horizon: number) =>
    ok(
      api.GET("/v1/candidates", {
        signal,
        params: {
          query: {
            status: "OPEN",
            activity_ends_gte: new Date(now).toISOString(),
            activity_ends_lt: new Date(now + horizon).toISOString(),
            limit: PAGE,
          },
        },
      }),
    );
  let shown = { page: await endingWithin(HORIZON_MS), horizon: HORIZON_MS };
  if (shown.page.next_cursor !== null) {
    // Every candidate ending within `fits` fits in a page; more than a page end within `crowded`.
    // Halved down to the millisecond if need be: a crowded page is the newest made, not the soonest
    // to end, so it is shown only when more than a page end within a millisecond of each other.
    let fits: typeof shown | undefined;
    let crowded = shown;
    while ((fits?.page.data.length ?? 0) < ENOUGH && crowded.horizon - (fits?.horizon ?? 0) > 1) {
      const horizon = Math.floor(((fits?.horizon ?? 0) + crowded.horizon) / 2);
      const tried = { page: await endingWithin(horizon), horizon };
      if (tried.page.next_cursor === null) fits = tried;
      else crowded = tried;
    }
    shown = fits && fits.page.data.length > 0 ? fits : crowded;
  }
  const soon = shown.page.data
    .map((candidate) => ({ candidate, endsAt: Date.parse(candidate.activity_ends_at) }))
    .sort((a, b) => a.endsAt - b.endsAt);
  // None ending soon may still mean some others: only an account with none at all gets the how-to.
  const anyAtAll =
    soon.length > 0 ||
    (await ok(api.GET("/v1/candidates", { signal, params: { query: { limit: 1 } } }))).data.length > 0;
  return { soon, now, horizon: shown.horizon, all: shown.page.next_cursor === null, anyAtAll };
}

/** "3 h 20 min": a duration, to read at a glance. */
function duration(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
}

/** What the table holds, in words. */
function caption({ soon, horizon, all }: { soon: unknown[]; horizon: number; all: boolean }): string {
  if (horizon === HORIZON_MS) return "OPEN candidates whose activity window ends in the next 24 hours, soonest first.";
  const crowded = `More than ${PAGE} OPEN candidates' activity windows end in the next 24 hours.`;
  return all
    ? `${crowded} ${soon.length === 1 ? "Here is the one" : `Here are the ${soon.length}`} ending in the next ${duration(horizon)}${soon.length === 1 ? "" : ", soonest first"}.`
    : `${crowded} More than ${PAGE} end in the next ${duration(horizon)}: here are ${PAGE} of them, soonest first.`;
}

export function TimingOut() {
  const loaded = useLoad(readTimingOut, []);
  const data = loaded.data;
  return (
    <section class="panel overview-part" aria-labelledby="h-timing-out">
      <h3 id="h-timing-out">Candidates about to time out</h3>
      <ErrorNote error={loaded.error} />
      {!data ? (
        !loaded.error && <Loading />
      ) : !data.anyAtAll ? (
        <GettingStarted />
      ) : (
        <>
          <p class="muted">
            {caption(data)} <a href={candidatesHref({ status: "OPEN" })}>All OPEN candidates</a>
          </p>
          {data.soon.length === 0 ? (
            <p>None: no OPEN candidate's activity window ends within 24 hours.</p>
          ) : (
            <TableWrap label="Activity windows ending within 24 hours">
              <table class="compact">
                <thead>
                  <tr>
                    {/* When, beside the alias: on a phone the table scrolls, and this is what it is for. */}
                    <th scope="col">Alias</th>
                    <th scope="col">Activity window ends</th>
                    <th scope="col">Customer</th>
                  </tr>
                </thead>
                <tbody>
                  {data.soon.map(({ candidate: c, endsAt }) => (
                    <tr key={c.id}>
                      <td class="alias">
                        <a class="mono" href={candidatePath(c.candidate_alias)}>
                          {c.candidate_alias}
                        </a>
                      </td>
                      <td class="ends">
                        in {duration(endsAt - data.now)} (<Time iso={c.activity_ends_at} />)
                        <br />
                        <span class="muted">
                          then <span class="mono">{c.contract.timeout_outcome}</span>, unless fulfilled
                        </span>
                      </td>
                      <td class="mono wrap">{c.customer_uuid}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </section>
  );
}
