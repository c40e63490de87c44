/**
 * The notifications feed: every status a candidate entered, kept 30 days. The API reads it oldest
 * first, forwards only (made for tailing); this page keeps that order and says so, and "Newest"
 * walks forward to the last page. Filters (type, candidate alias) live in the address.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { BASE } from "../paths";
import { api, ok } from "../api";
import { described, Field } from "../components/fields";
import { Empty, ErrorNote, Loading } from "../components/notes";
import { Page } from "../components/page";
import { countOf } from "../components/values";
import { Pager, useCursor } from "../components/pager";
import { useLoad } from "../load";
import { PermittedLink, useCan } from "../session";
import { FeedTable } from "./notifications/feed-table";
import { findLatest, type FeedFilters } from "./notifications/latest";
import { FormError } from "./shared/form-error";
import { useCall } from "../components/use-call";

const TYPES = ["candidate.pending", "candidate.confirmed", "candidate.failed"] as const;
const PAGE_SIZE = 25;

export function Notifications() {
  const { path, query, route } = useLocation();
  const can = useCan();
  const filters: FeedFilters = {
    type: TYPES.find((t) => t === query.type),
    candidate_alias: query.candidate_alias || undefined,
  };
  const cursor = useCursor();
  const feed = useLoad(
    () =>
      ok(api.GET("/v1/notifications", { params: { query: { ...filters, after: cursor.after, limit: PAGE_SIZE } } })),
    [filters.type, filters.candidate_alias, cursor.after],
  );
  // Resending needs an enabled endpoint to send to; without webhooks:write there is no Resend at all.
  const canResend = can("webhooks:write");
  const endpoints = useLoad(
    () =>
      canResend
        ? ok(api.GET("/v1/webhook_endpoints")).then((r) => r.data.filter((e) => e.status === "enabled"))
        : Promise.resolve(null),
    [canResend],
  );
  const [alias, setAlias] = useState(filters.candidate_alias ?? "");
  const filterButton = useRef<HTMLButtonElement>(null);
  // The box follows the address: Back to another filter shows that filter.
  useEffect(() => setAlias(filters.candidate_alias ?? ""), [filters.candidate_alias]);
  const walk = useCall();
  const [walkNote, setWalkNote] = useState<string | null>(null);

  const filter = (next: Partial<Record<"type" | "candidate_alias", string>>) => {
    const q = new URLSearchParams(Object.entries({ ...filters, ...next }).filter((e): e is [string, string] => !!e[1]));
    setWalkNote(null);
    walk.setError(null);
    route(q.size ? `${path}?${q}` : path);
  };

  const toNewest = () =>
    walk.run(async () => {
      setWalkNote(null);
      const latest = await findLatest(cursor.after, filters, PAGE_SIZE);
      if (latest.after === cursor.after) feed.reload();
      else cursor.jumpTo(latest.after!);
      setWalkNote(
        latest.reachedEnd
          ? "Showing the newest notifications."
          : `Passed ${latest.passed} notifications without reaching the newest: press “Newest” again to go on.`,
      );
    });

  const page = feed.data;
  const filtered = !!(filters.type || filters.candidate_alias);
  return (
    <Page title="Notifications">
      <p class="muted">
        Every status a candidate entered, kept 30 days, <strong>oldest first</strong> as the API records them (a reader
        tails the feed with <code>?after=</code> the last id it saw). “Newest” goes to the last page. Webhook deliveries
        carry the same notifications.
      </p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ candidate_alias: alias.trim() });
        }}
      >
        <div class="row">
          <Field id="feed-type" label="Type">
            <select id="feed-type" value={filters.type ?? ""} onChange={(e) => filter({ type: e.currentTarget.value })}>
              <option value="">Any</option>
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
          <Field id="feed-alias" label="Candidate alias" error={feed.error} path="candidate_alias">
            <input
              {...described("feed-alias", feed.error, "candidate_alias")}
              value={alias}
              onInput={(e) => setAlias(e.currentTarget.value)}
              spellcheck={false}
              autocomplete="off"
            />
          </Field>
          <div class="field">
            <button type="submit" ref={filterButton}>
              Filter
            </button>
          </div>
          {filtered && (
            <div class="field">
              <button
                type="button"
                class="secondary"
                // It goes with the filters: the focus goes to Filter rather than the page's body.
                onClick={() => (setAlias(""), route(path), filterButton.current?.focus())}
              >
                Clear filters
              </button>
            </div>
          )}
          <div class="field">
            <button
              type="button"
              class="secondary"
              aria-disabled={walk.busy || feed.loading || undefined}
              onClick={() => !walk.busy && !feed.loading && void toNewest()}
            >
              {walk.busy ? "Finding the newest…" : "Newest"}
            </button>
          </div>
          <div class="field">
            <button
              type="button"
              class="secondary"
              aria-disabled={feed.loading || undefined}
              onClick={() => !feed.loading && feed.reload()}
            >
              Refresh
            </button>
          </div>
        </div>
      </form>
      {walkNote && (
        <p class="muted" role="status">
          {walkNote}
        </p>
      )}
      <ErrorNote error={walk.error} />
      <FormError error={feed.error} paths={["candidate_alias"]} />
      <ErrorNote error={endpoints.error} />
      {canResend && endpoints.data && endpoints.data.length === 0 && page && page.data.length > 0 && (
        <p class="muted">
          To resend a notification, <a href={`${BASE}/webhooks`}>add or enable a webhook endpoint</a>.
        </p>
      )}
      {!page && feed.loading && <Loading />}
      {/* Said after each read (a filter chosen, a page turned), so a screen reader hears what it found. */}
      <p class="visually-hidden" role="status">
        {page && !feed.loading ? `${countOf(page.data.length, "notification")} on this page.` : ""}
      </p>
      {page && page.data.length === 0 && (
        <Empty
          title={
            filtered
              ? "No notifications match these filters"
              : cursor.hasPrevious
                ? "No newer notifications yet"
                : "No notifications yet"
          }
        >
          <p>
            A notification is recorded each time a candidate becomes PENDING, CONFIRMED or FAILED: when an event fulfils
            its condition, when a window ends, or when it is resolved.
          </p>
          <p>
            Create a schema on the{" "}
            <PermittedLink href={`${BASE}/schemas`} needs="schemas:write">
              Schemas page
            </PermittedLink>
            , then candidates from it, and send them events. Or read the feed with the API:
          </p>
          <pre class="mono">{`curl -s "${location.origin}/v1/notifications?limit=50" -H "Authorization: Bearer $TOKEN"`}</pre>
        </Empty>
      )}
      {page && page.data.length > 0 && (
        <FeedTable notifications={page.data} resendTo={canResend && endpoints.data?.length ? endpoints.data : null} />
      )}
      {page && page.next_cursor === null && page.data.length > 0 && (
        <p class="muted">This is the newest page: “Refresh” shows any notification recorded since.</p>
      )}
      <Pager cursor={cursor} next={page?.next_cursor ?? null} loading={feed.loading} />
    </Page>
  );
}
