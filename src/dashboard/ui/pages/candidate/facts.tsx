/** What the API says a candidate is, field by field, and its events as a table. */
import { shellQuote } from "../../components/shell";
import type { Models } from "../../api";
import { StatusBadge, Time } from "../../components/values";
import { BASE } from "../../paths";
import { readableJson } from "../../components/bidi";
import { TableWrap } from "../../components/table-wrap";

type Candidate = Models["CandidateWithEvents"];

/** Seconds as the API gives them, with a reading aid: "90000 s (1 d 1 h)". */
export function seconds(value: number): string {
  const parts: string[] = [];
  let rest = Math.floor(value);
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["min", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  return value < 60 ? `${value} s` : `${value} s (${parts.slice(0, 2).join(" ")})`;
}

export function Facts({ candidate }: { candidate: Candidate }) {
  const { contract } = candidate;
  return (
    <dl class="facts">
      <dt>Alias</dt>
      <dd class="mono">{candidate.candidate_alias}</dd>
      <dt>Customer</dt>
      <dd>
        <a href={`${BASE}/candidates?${new URLSearchParams({ customer_uuid: candidate.customer_uuid })}`} class="mono">
          {candidate.customer_uuid}
        </a>
      </dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={candidate.status} /> since <Time iso={candidate.status_since} />
      </dd>
      <dt>Scheduled outcome</dt>
      <dd>
        {candidate.scheduled_outcome ? (
          <StatusBadge status={candidate.scheduled_outcome} />
        ) : (
          <span class="muted">none yet (OPEN)</span>
        )}
      </dd>
      <dt>Activity window ends</dt>
      <dd>
        <Time iso={candidate.activity_ends_at} />
      </dd>
      <dt>Review window ends</dt>
      <dd>
        {candidate.review_ends_at ? (
          <Time iso={candidate.review_ends_at} />
        ) : (
          <span class="muted">
            {candidate.status === "OPEN" ? "not started (while OPEN)" : "none: it went from OPEN straight to final"}
          </span>
        )}
      </dd>
      <dt>Created</dt>
      <dd>
        <Time iso={candidate.created_at} />
      </dd>
      <dt>Price</dt>
      {/* JSON numbers of at most 15 significant digits print back exactly as stored. */}
      <dd class="amount">{String(contract.price)}</dd>
      <dt>Schema</dt>
      <dd>
        {candidate.schema_id ? (
          <>
            <span class="mono">{candidate.schema_id}</span>{" "}
            {/* The schema may have been changed or deleted since: the contract below is what holds. */}
            <span class="muted">(its contract as at creation, kept with the candidate)</span>
          </>
        ) : (
          <span class="muted">none (inline contract)</span>
        )}
      </dd>
      <dt>Windows</dt>
      <dd>
        activity {seconds(contract.activity_window)}, review {seconds(contract.review_window)}
      </dd>
      <dt>Timeout outcome</dt>
      <dd class="mono">{contract.timeout_outcome}</dd>
      <dt>Condition</dt>
      <dd>
        <pre class="json">{readableJson(contract.fulfillment_condition, 2)}</pre>
      </dd>
    </dl>
  );
}

/** A leaf's path within the condition: "all.1" for "fulfillment_condition.all.1". */
export const leafName = (path: string) => path.replace(/^fulfillment_condition\.?/, "") || "the condition";

/** Every event, oldest first: the timeline's text alternative. */
export function EventsTable({ candidate }: { candidate: Candidate }) {
  const leavesBy = new Map<string, string[]>();
  for (const leaf of candidate.condition_progress.leaves)
    if (leaf.event_id) leavesBy.set(leaf.event_id, [...(leavesBy.get(leaf.event_id) ?? []), leafName(leaf.path)]);
  if (candidate.events.length === 0) {
    return (
      <p class="empty">
        No events yet. Send one:{" "}
        <code>{`curl -X POST ${location.origin}/v1/events -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d ${shellQuote(readableJson({ candidate_alias: candidate.candidate_alias, type: "..." }))}`}</code>
      </p>
    );
  }
  return (
    <TableWrap label="Events, oldest first">
      <table class="compact">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Received</th>
            <th scope="col">Matched</th>
            <th scope="col">Met leaf</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {candidate.events.map((event) => (
            <tr key={event.id}>
              <td class="mono wrap">{event.type}</td>
              <td>
                <Time iso={event.received_at} />
              </td>
              <td>{event.matched ? <strong class="matched">◆ matched</strong> : <span class="muted">no</span>}</td>
              <td class="mono">{leavesBy.get(event.id)?.join(", ") ?? <span class="muted">—</span>}</td>
              <td class="wrap">
                {"value" in event && event.value !== undefined ? (
                  <code>{readableJson(event.value)}</code>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
