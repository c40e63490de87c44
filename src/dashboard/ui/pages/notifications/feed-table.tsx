/** One page of the feed, in the API's order (oldest first), each row with what caused it. */
import { candidatePath } from "../../paths";
import type { Models } from "../../api";
import { Time } from "../../components/values";
import { Resend } from "./resend";
import { takersFirst } from "./takers-first";
import { TableWrap } from "../../components/table-wrap";

type Notification = Models["Notification"];
type Endpoint = Pick<Models["WebhookEndpoint"], "id" | "url" | "enabled_events">;

export function FeedTable({ notifications, resendTo }: { notifications: Notification[]; resendTo: Endpoint[] | null }) {
  return (
    <TableWrap label="Notifications">
      <table class="wide xwide">
        <caption class="visually-hidden">Notifications, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Timestamp</th>
            <th scope="col">Type</th>
            <th scope="col">Candidate</th>
            <th scope="col">Cause</th>
            <th scope="col">Id</th>
            {resendTo && <th scope="col">Resend</th>}
          </tr>
        </thead>
        <tbody>
          {notifications.map((n) => {
            const candidate = n.data.candidate;
            return (
              <tr key={n.id}>
                <td>
                  <Time iso={n.timestamp} />
                </td>
                <td>
                  {/* The type as the API wrote it, coloured by the status it names. */}
                  <span class={`badge status-${n.type.replace("candidate.", "")}`}>{n.type}</span>
                </td>
                <td class="wrap">
                  <a href={candidatePath(candidate.candidate_alias)}>{candidate.candidate_alias}</a>
                  <small class="muted block">customer {candidate.customer_uuid}</small>
                </td>
                <td>
                  <Cause cause={n.data.cause} />
                </td>
                <td class="id-cell">
                  <code>{n.id}</code>
                </td>
                {resendTo && (
                  <td>
                    <Resend notificationId={n.id} endpoints={takersFirst(resendTo, n.type)} linkToLog />
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

const CAUSES: Record<string, string> = {
  event: "an event fulfilled the condition",
  activity_window_ended: "the activity window ended",
  review_window_ended: "the review window ended",
  resolved: "resolved by a call",
};

function Cause({ cause }: { cause: Notification["data"]["cause"] }) {
  return (
    <>
      <code>{cause.kind}</code>
      <small class="muted block">{CAUSES[cause.kind] ?? ""}</small>
      {cause.kind === "event" && (
        <small class="muted block">
          event <code>{cause.event_id}</code>
        </small>
      )}
    </>
  );
}
