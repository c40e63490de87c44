/** What an account without candidates does next: a schema, then a candidate, then events (with the curl). */
import { BASE } from "../../paths";
import { Empty } from "../../components/notes";
import { PermittedLink, useCan } from "../../session";

/** `onCandidatesPage`: shown on the Candidates page, whose “New candidate” is above it (no link to itself). */
export function GettingStarted({ onCandidatesPage = false }: { onCandidatesPage?: boolean }) {
  const can = useCan();
  const api = location.origin;
  const auth = `-H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json"`;
  return (
    <Empty title="No candidates yet">
      <ol>
        <li>
          Create a schema (the contract) on the{" "}
          <PermittedLink href={`${BASE}/schemas`} needs="schemas:write">
            Schemas page
          </PermittedLink>
          .
        </li>
        <li>
          {onCandidatesPage && can("candidates:write") ? (
            "Create a candidate for a customer: “New candidate”, above."
          ) : (
            <>
              Create a candidate for a customer: “New candidate” on the{" "}
              <PermittedLink href={`${BASE}/candidates`} needs="candidates:write">
                Candidates page
              </PermittedLink>
              .
            </>
          )}
        </li>
        <li>Send it events on its page.</li>
      </ol>
      <p>Or with the API:</p>
      <pre class="json curl">{`curl -X POST ${api}/v1/schemas ${auth} -d '{"contract": {"price": 49.5, "activity_window": 604800, "review_window": 86400,
  "fulfillment_condition": {"event": "purchase", "field": "total", "gte": 100}, "timeout_outcome": "fail"}}'

curl -X POST ${api}/v1/candidates ${auth} -d '{"customer_uuid": "cust_42", "candidate_alias": "order-2026-0001"}'

curl -X POST ${api}/v1/events ${auth} -d '{"candidate_alias": "order-2026-0001", "type": "purchase", "value": {"total": 120}}'`}</pre>
      <p class="muted">
        <code>$TOKEN</code> is an API key: make one on the{" "}
        <PermittedLink href={`${BASE}/api-keys`} needs="api_keys:write">
          API keys page
        </PermittedLink>
        .
      </p>
    </Empty>
  );
}
