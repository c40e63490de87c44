/**
 * OPEN candidates whose activity window ends within 24 hours, soonest first. It reads the 100
 * newest OPEN candidates (one page), and says so: older ones are not looked at.
 */
import { api, ok } from "../../api";
import { useLoad } from "../../load";
import { ErrorNote, Loading } from "../../components/notes";
import { Time } from "../../components/values";
import { candidatePath } from "../../paths";
import { candidatesHref } from "../candidates/filters";
import { GettingStarted } from "../candidates/getting-started";

const LOOKED_AT = 100;
const HORIZON_MS = 24 * 3_600_000;

async function readTimingOut() {
  const page = await ok(api.GET("/v1/candidates", { params: { query: { status: "OPEN", limit: LOOKED_AT } } }));
  const now = Date.now();
  const soon = page.data
    .map((candidate) => ({ candidate, endsAt: Date.parse(candidate.activity_ends_at) }))
    .filter(({ endsAt }) => endsAt > now && endsAt <= now + HORIZON_MS)
    .sort((a, b) => a.endsAt - b.endsAt);
  // No OPEN ones may still mean some others: only an account with none at all gets the how-to.
  const anyAtAll =
    page.data.length > 0 || (await ok(api.GET("/v1/candidates", { params: { query: { limit: 1 } } }))).data.length > 0;
  return { soon, now, open: page.data.length, more: page.next_cursor !== null, anyAtAll };
}

/** "in 3 h 20 min": how far off an instant is, to read at a glance (the exact instant is beside it). */
function inTime(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 60 ? `in ${minutes} min` : `in ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
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
            OPEN candidates whose activity window ends in the next 24 hours, among the{" "}
            {data.more ? `${LOOKED_AT} newest` : data.open} OPEN ones
            {data.more ? " (older OPEN candidates are not looked at here)" : ""}.{" "}
            <a href={candidatesHref({ status: "OPEN" })}>All OPEN candidates</a>
          </p>
          {data.soon.length === 0 ? (
            <p>None: no activity window of {data.more ? "these" : "an OPEN candidate"} ends within 24 hours.</p>
          ) : (
            <div class="table-wrap">
              <table class="compact">
                <thead>
                  <tr>
                    <th scope="col">Alias</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Activity window ends</th>
                    <th scope="col">Then, unless fulfilled</th>
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
                      <td class="mono wrap">{c.customer_uuid}</td>
                      <td>
                        {inTime(endsAt - data.now)} (<Time iso={c.activity_ends_at} />)
                      </td>
                      <td>
                        timeout outcome <span class="mono">{c.contract.timeout_outcome}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
