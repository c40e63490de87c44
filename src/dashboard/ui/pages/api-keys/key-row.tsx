/**
 * One key in the list, and what may be done to it, each in a small form below its row: rename,
 * roll (a new secret, shown once; the old key ends when asked), revoke (confirmed first). The API
 * refuses a key managing a key that can do more than it (403): that answer is shown at the action.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { CandidateContractError, client, SESSION_ENDED, signOut, type Models } from "../../api";
import { described, ErrorNote, Field, fieldMessages, StatusBadge, Time, useFocusInPlace } from "../../components/ui";
import { compact, isFullAccess } from "./permissions";

type Key = Models["ApiKey"];
type Action = "rename" | "roll" | "revoke" | null;
export const COLUMNS = 6;

export interface RowProps {
  apiKey: Key;
  /** The key this session signed in with. */
  own: boolean;
  canWrite: boolean;
  onChanged: () => void;
  /** A new secret to show once; `signsOut`: this session ends with the old key. */
  onSecret: (secret: { label: string; secret: string; signsOut: boolean }) => void;
}

export function KeyRow({ apiKey, own, canWrite, onChanged, onSecret }: RowProps) {
  const [action, setAction] = useState<Action>(null);
  const toggles = useRef<Partial<Record<NonNullable<Action>, HTMLButtonElement | null>>>({});
  const panelRef = useRef<HTMLDivElement>(null);
  // A panel's first control takes the focus; closed, focus goes back to its button (or Rename, if it is gone).
  useFocusInPlace(
    action,
    () => panelRef.current?.querySelector<HTMLElement>("input, select, button"),
    (was) => toggles.current[was] ?? toggles.current.rename,
  );
  const open = (a: Action) => setAction((current) => (current === a ? null : a));
  const close = () => setAction(null);
  const done = () => {
    close();
    onChanged();
  };
  // A revoke re-reads the list, whose row then has no Roll or Revoke: if the focus went with its
  // button, Rename (always there) takes it.
  const revoked = useRef(false);
  useEffect(() => {
    if (!revoked.current) return;
    revoked.current = false;
    if ((document.activeElement ?? document.body) === document.body) toggles.current.rename?.focus();
  }, [apiKey.status]);
  const panel = `key-${apiKey.id}-action`;
  return (
    <>
      <tr>
        <th scope="row" class="key-name">
          <span class="name">{apiKey.name}</span> {own && <span class="badge own">this session’s key</span>}
          <div class="mono muted">{apiKey.redacted}</div>
          {canWrite && (
            <div class="row-actions">
              <button
                type="button"
                class="secondary small"
                aria-expanded={action === "rename"}
                aria-controls={panel}
                ref={(b) => void (toggles.current.rename = b)}
                onClick={() => open("rename")}
              >
                Rename
              </button>
              {apiKey.status === "active" && (
                <button
                  type="button"
                  class="secondary small"
                  aria-expanded={action === "roll"}
                  aria-controls={panel}
                  ref={(b) => void (toggles.current.roll = b)}
                  onClick={() => open("roll")}
                >
                  Roll
                </button>
              )}
              {apiKey.status !== "revoked" && (
                <button
                  type="button"
                  class="danger small"
                  aria-expanded={action === "revoke"}
                  aria-controls={panel}
                  ref={(b) => void (toggles.current.revoke = b)}
                  onClick={() => open("revoke")}
                >
                  Revoke
                </button>
              )}
            </div>
          )}
        </th>
        <td>
          <StatusBadge status={apiKey.status} />
          {apiKey.revoked_at && (
            <div class="muted small-text">
              <Time iso={apiKey.revoked_at} />
            </div>
          )}
        </td>
        <td>
          {isFullAccess(apiKey.permissions) ? (
            <span class="full-access-text">Full access</span>
          ) : (
            compact(apiKey.permissions).map((p) => (
              <code key={p} class="perm">
                {p}
              </code>
            ))
          )}
        </td>
        <td>
          <Time iso={apiKey.created_at} />
        </td>
        <td>{apiKey.expires_at ? <Time iso={apiKey.expires_at} /> : <span class="muted">Never</span>}</td>
        <td>{apiKey.last_used_at ? <Time iso={apiKey.last_used_at} /> : <span class="muted">Never used</span>}</td>
      </tr>
      {action && (
        <tr class="key-action">
          <td colSpan={COLUMNS}>
            <div id={panel} ref={panelRef} class="key-action-panel" onKeyDown={(e) => e.key === "Escape" && close()}>
              {action === "rename" && <Rename apiKey={apiKey} onDone={done} onCancel={close} />}
              {action === "roll" && (
                <Roll
                  apiKey={apiKey}
                  own={own}
                  onRolled={(secret) => {
                    close();
                    onSecret({ label: `The new secret of “${apiKey.name}”`, secret, signsOut: own });
                  }}
                  onCancel={close}
                />
              )}
              {action === "revoke" && (
                <Revoke
                  apiKey={apiKey}
                  own={own}
                  onDone={() => {
                    revoked.current = true;
                    done();
                  }}
                  onCancel={close}
                />
              )}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

function Rename({ apiKey, onDone, onCancel }: { apiKey: Key; onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState(apiKey.name);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = `rename-${apiKey.id}`;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        client.apiKeys.rename(apiKey.id, name.trim()).then(onDone, (err: unknown) => {
          setError(err);
          setBusy(false);
        });
      }}
    >
      <div class="row">
        <Field id={id} label={`New name for “${apiKey.name}”`} error={error} path="name">
          <input
            {...described(id, error, "name")}
            value={name}
            maxLength={100}
            required
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <div class="actions field-actions">
          <button type="submit" disabled={name.trim() === ""} aria-disabled={busy || undefined}>
            Save name
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
      <ErrorNote error={fieldMessages(error, "name").length ? null : error} />
    </form>
  );
}

const GRACE = [
  { seconds: 0, label: "Now" },
  { seconds: 60, label: "In 1 minute" },
  { seconds: 3600, label: "In 1 hour" },
  { seconds: 86_400, label: "In 1 day" },
];

/**
 * The API's refusal of a roll at the key limit names `expires_in`, which this form calls “The old
 * key stops working”: said in the form's words, at that field.
 */
function inFormTerms(error: unknown, seconds: number): unknown {
  if (!(error instanceof CandidateContractError) || error.code !== "API_KEY_LIMIT_REACHED" || seconds === 0)
    return error;
  const message =
    "The account has 100 active keys, and the old key would stay active beside the new one. Choose “Now” to swap them, or revoke a key you no longer use.";
  const details = [{ path: "expires_in", message: "must be “Now” at 100 active keys" }];
  return new CandidateContractError(error.code, message, error.status, details, error.requestId);
}

function Roll({
  apiKey,
  own,
  onRolled,
  onCancel,
}: {
  apiKey: Key;
  own: boolean;
  onRolled: (secret: string) => void;
  onCancel: () => void;
}) {
  const [seconds, setSeconds] = useState(3600);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = `roll-${apiKey.id}`;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        client.apiKeys.roll(apiKey.id, { expiresIn: seconds }).then(
          (rolled) => onRolled(rolled.secret),
          (err: unknown) => {
            setError(inFormTerms(err, seconds));
            setBusy(false);
          },
        );
      }}
    >
      <p>
        Rolling makes a new key with the same name, permissions and expiry, and a new secret shown once. The old key
        keeps working until the time you choose (never longer than it would have), so you can deploy the new secret
        first.
      </p>
      {own && (
        <p class="notice">
          This is this session’s key: when the old key stops working, this browser is signed out. Copy the new secret to
          sign in again.
        </p>
      )}
      <div class="row">
        <Field id={id} label="The old key stops working" error={error} path="expires_in">
          <select
            {...described(id, error, "expires_in")}
            value={seconds}
            onChange={(e) => setSeconds(Number(e.currentTarget.value))}
          >
            {GRACE.map((g) => (
              <option key={g.seconds} value={g.seconds}>
                {g.label}
              </option>
            ))}
          </select>
        </Field>
        <div class="actions field-actions">
          <button type="submit" aria-disabled={busy || undefined}>
            {busy ? "Rolling…" : "Roll key"}
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

function Revoke({
  apiKey,
  own,
  onDone,
  onCancel,
}: {
  apiKey: Key;
  own: boolean;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const revoke = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await client.apiKeys.revoke(apiKey.id);
      if (!own) return onDone();
      // This browser's session ends with its key (within 10 s): end it now rather than fail later.
      await signOut().catch(() => undefined);
      window.dispatchEvent(new Event(SESSION_ENDED));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <div role="group" aria-label={`Revoke “${apiKey.name}”`}>
      <p>
        Revoke <strong>{apiKey.name}</strong> (<span class="mono">{apiKey.redacted}</span>)? It stops working within 10
        seconds, for good, and dashboard sessions signed in with it end within 10 seconds too.
      </p>
      {own && <p class="notice">This is this session’s key: revoking it signs this browser out.</p>}
      <div class="actions">
        <button type="button" class="danger" aria-disabled={busy || undefined} onClick={() => void revoke()}>
          {busy ? "Revoking…" : own ? "Revoke and sign out" : "Revoke key"}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
