/**
 * What a `webhooks:write` session can do to one endpoint: change it, enable or disable it, send
 * a test, rotate its secret (the new one shown once), delete it. Each shows the API's answer.
 */
import { useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { BASE } from "../../paths";
import { api, ok, type Models } from "../../api";
import { ErrorNote } from "../../components/notes";
import { useFocusInPlace } from "../../components/page";
import { SecretOnce, StatusBadge, Time } from "../../components/values";
import { useCall } from "../../components/use-call";
import { ConfirmInline } from "../shared/confirm-inline";
import { EndpointForm, type EndpointInput } from "../webhooks/endpoint-form";
import { cameBackFromDeleting } from "../webhooks";

type Endpoint = Models["WebhookEndpoint"];
type TestAttempt = Models["WebhookTestAttempt"];

export function EndpointActions({ endpoint, onChanged }: { endpoint: Endpoint; onChanged: () => void }) {
  const { route } = useLocation();
  const { busy, error, run } = useCall();
  const [editing, setEditing] = useState(false);
  // The form takes the focus as it opens (Edit is disabled meanwhile); saved or cancelled, Edit has it back.
  const editButton = useRef<HTMLButtonElement>(null);
  const editPanel = useRef<HTMLDivElement>(null);
  useFocusInPlace(
    editing,
    () => editPanel.current?.querySelector("input"),
    () => editButton.current,
  );
  const [test, setTest] = useState<TestAttempt | null>(null);
  // What the last change did, in a live region that is always there, so it is read out as it changes.
  const [said, setSaid] = useState("");
  // The rotated secret: this component's state only, dropped at "Done" or when the page changes.
  const [secret, setSecret] = useState<string | null>(null);
  const path = { params: { path: { id: endpoint.id } } };

  // Their buttons stay focusable while busy (aria-disabled): a disabled one would drop the focus.
  const setStatus = (status: Endpoint["status"]) =>
    run(
      async () => {
        setSaid("");
        await api.PATCH("/v1/webhook_endpoints/{id}", { ...path, body: { status } });
        setSaid(status === "enabled" ? "Enabled: notifications are delivered to it again." : "Disabled.");
        onChanged();
      },
      { exclusive: true },
    );
  const sendTest = () =>
    run(
      async () => {
        setSaid(""); // what it says is the test's answer, below
        setTest(null);
        setTest(await ok(api.POST("/v1/webhook_endpoints/{id}/test", { ...path, body: {} })));
      },
      { exclusive: true },
    );
  const rotate = () =>
    run(async () => {
      setSaid("");
      setSecret((await ok(api.POST("/v1/webhook_endpoints/{id}/rotate_secret", { ...path, body: {} }))).secret);
      onChanged();
    });
  const remove = () =>
    run(async () => {
      await api.DELETE("/v1/webhook_endpoints/{id}", { ...path });
      cameBackFromDeleting(endpoint.url);
      route(`${BASE}/webhooks`);
    });
  const save = async (input: EndpointInput) => {
    const body: Models["UpdateWebhookEndpointBody"] = {};
    if (input.url !== endpoint.url) body.url = input.url;
    if (input.description !== endpoint.description) body.description = input.description;
    if (input.enabled_events.join() !== endpoint.enabled_events.join()) body.enabled_events = input.enabled_events;
    setSaid("");
    if (Object.keys(body).length > 0) await api.PATCH("/v1/webhook_endpoints/{id}", { ...path, body });
    setSaid(Object.keys(body).length > 0 ? "Saved the changes." : "Nothing changed.");
    setEditing(false);
    onChanged();
  };

  return (
    <section class="panel" aria-labelledby="endpoint-actions">
      <h2 id="endpoint-actions" class="panel-title">
        Manage
      </h2>
      <div class="actions">
        {endpoint.status === "enabled" ? (
          <button
            type="button"
            class="secondary"
            aria-disabled={busy || undefined}
            onClick={() => void setStatus("disabled")}
          >
            Disable
          </button>
        ) : (
          <button type="button" aria-disabled={busy || undefined} onClick={() => void setStatus("enabled")}>
            Enable
          </button>
        )}
        <button type="button" class="secondary" aria-disabled={busy || undefined} onClick={() => void sendTest()}>
          Send a test
        </button>
        <button
          ref={editButton}
          type="button"
          class="secondary"
          disabled={editing}
          onClick={() => (setSaid(""), setEditing(true))}
        >
          Edit
        </button>
        <ConfirmInline
          label="Rotate secret"
          tone="secondary"
          question="Issue a new signing secret? The current one keeps signing beside it for 24 hours."
          confirmLabel="Rotate"
          disabled={busy}
          onConfirm={rotate}
        />
        <ConfirmInline
          label="Delete"
          labelFull="Delete this endpoint"
          question="Delete this endpoint and its delivery log? Nothing more is sent to it."
          confirmLabel="Delete"
          disabled={busy}
          onConfirm={remove}
        />
      </div>
      {endpoint.status === "disabled" && (
        <p class="muted">
          Disabled: nothing is delivered to it (a test still is). Enabling it also clears its failure streak.
        </p>
      )}
      <p class="muted said" role="status">
        {said}
      </p>
      <ErrorNote error={error} />
      {secret && (
        <>
          <SecretOnce label="New signing secret" secret={secret} onDone={() => setSecret(null)} />
          <p class="muted">
            Every delivery from now on is signed with this secret and, for 24 hours, also with the previous one (the{" "}
            <code>webhook-signature</code> header then carries both), so your receiver can switch to it without missing
            one. Any secret replaced in the last 24 hours still signs.
          </p>
        </>
      )}
      {test && <TestResult test={test} />}
      {editing && (
        <div class="subpanel" ref={editPanel}>
          <h3>Edit endpoint</h3>
          <EndpointForm
            idPrefix="edit-endpoint"
            endpoint={endpoint}
            submitLabel="Save changes"
            onSubmit={save}
            onCancel={() => setEditing(false)}
          />
        </div>
      )}
    </section>
  );
}

/** What the test request got: not a notification, so it is not in the delivery log below. */
function TestResult({ test }: { test: TestAttempt }) {
  return (
    <div class="notice" role="status">
      <p>
        Test <code>{test.event_id}</code>: <StatusBadge status={test.status} />
      </p>
      <dl class="facts">
        <dt>Response status</dt>
        <dd>{test.response_status ?? <span class="muted">none</span>}</dd>
        <dt>Error</dt>
        <dd>{test.error ?? <span class="muted">none</span>}</dd>
        <dt>Duration</dt>
        <dd>{test.duration_ms} ms</dd>
        <dt>Sent at</dt>
        <dd>
          <Time iso={test.attempted_at} />
        </dd>
      </dl>
    </div>
  );
}
