/**
 * Resend one notification to one enabled endpoint (POST /v1/notifications/{id}/resend): at once
 * when there is one endpoint to send to, else after choosing it. Shows what the API answered,
 * unless `onSent` takes the answer to show it elsewhere.
 */
import { useRef, useState } from "preact/hooks";
import { BASE } from "../../paths";
import { api, ok, type Models } from "../../api";
import { ErrorNote } from "../../components/notes";
import { useFocusInPlace } from "../../components/page";
import { useCall } from "../../components/use-call";

type Endpoint = Pick<Models["WebhookEndpoint"], "id" | "url">;
type Answer = { delivery_id: string; notification_id: string; webhook_endpoint_id: string };

export function Resend({
  notificationId,
  endpoints,
  linkToLog,
  onSent,
  onEndpointsPage = false,
}: {
  notificationId: string;
  endpoints: Endpoint[];
  linkToLog?: boolean;
  onSent?: (answer: Answer) => void;
  /** On the page of the one endpoint it sends to: the button's name need not repeat its URL. */
  onEndpointsPage?: boolean;
}) {
  const [choosing, setChoosing] = useState(false);
  const [target, setTarget] = useState(endpoints[0]?.id ?? "");
  const { busy, error, run } = useCall();
  const [answer, setAnswer] = useState<Answer | null>(null);
  const selectId = `resend-${notificationId}`;
  // Keyboard focus follows the chooser as it opens, and goes back to the button when it closes.
  const select = useRef<HTMLSelectElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useFocusInPlace(
    choosing,
    () => select.current,
    () => button.current,
  );

  // Its buttons stay focusable while sending (aria-disabled): a disabled one would drop the focus.
  const send = (endpointId: string) =>
    run(
      async () => {
        setAnswer(null);
        const sent = await ok(
          api.POST("/v1/notifications/{id}/resend", {
            params: { path: { id: notificationId } },
            body: { webhook_endpoint_id: endpointId },
          }),
        );
        setAnswer(sent);
        setChoosing(false);
        onSent?.(sent);
      },
      { exclusive: true },
    );

  if (endpoints.length === 0) return null;
  const only = endpoints.length === 1 ? endpoints[0] : null;
  return (
    <div class="resend">
      {!choosing && (
        <button
          ref={button}
          type="button"
          class="secondary small"
          aria-disabled={busy || undefined}
          aria-label={
            only ? `Resend ${notificationId}${onEndpointsPage ? "" : ` to ${only.url}`}` : `Resend ${notificationId}…`
          }
          onClick={() => (only ? void send(only.id) : setChoosing(true))}
        >
          {busy ? "Sending…" : only ? "Resend" : "Resend…"}
        </button>
      )}
      {choosing && (
        <form
          class="resend-choose"
          onKeyDown={(e) => e.key === "Escape" && !busy && setChoosing(false)}
          onSubmit={(e) => {
            e.preventDefault();
            void send(target);
          }}
        >
          <label for={selectId}>To endpoint</label>
          <select ref={select} id={selectId} value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            {endpoints.map((ep) => (
              <option key={ep.id} value={ep.id}>
                {ep.url}
              </option>
            ))}
          </select>
          <button type="submit" class="small" aria-disabled={busy || undefined}>
            {busy ? "Sending…" : "Send"}
          </button>
          <button type="button" class="secondary small" onClick={() => setChoosing(false)}>
            Cancel
          </button>
        </form>
      )}
      {answer && !onSent && (
        <small class="block" role="status">
          Queued: delivery <code>{answer.delivery_id}</code>.{" "}
          {linkToLog && (
            <a
              href={`${BASE}/webhooks/${answer.webhook_endpoint_id}?${new URLSearchParams({ notification_id: answer.notification_id })}`}
            >
              See its attempts
            </a>
          )}
        </small>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
