/**
 * What may be done to one key, each a small form in its row's panel: rename, roll (a new secret,
 * shown once; the old key ends when asked), revoke (confirmed first). The API refuses a key
 * managing a key that can do more than it (403): that answer is shown at the action.
 */
import { useState } from "preact/hooks";
import { client, holdSessionEnd, SESSION_ENDED, signOut, type Models } from "../../api";
import { described, Field } from "../../components/fields";
import { ErrorNote } from "../../components/notes";
import { useCall } from "../../components/use-call";
import { FormError } from "../shared/form-error";

type Key = Models["ApiKey"];

export function Rename({ apiKey, onDone, onCancel }: { apiKey: Key; onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState(apiKey.name);
  const { busy, error, setError, run } = useCall();
  const id = `rename-${apiKey.id}`;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void run(
          async () => {
            await client.apiKeys.rename(apiKey.id, name.trim());
            onDone();
          },
          { leaving: true, exclusive: true },
        );
      }}
    >
      <div class="row">
        <Field id={id} label={`New name for “${apiKey.name}”`} error={error} path="name">
          <input
            {...described(id, error, "name")}
            value={name}
            required
            onInput={(e) => {
              setName(e.currentTarget.value);
              setError(null); // the refusal was of the name it replaces
            }}
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
      <FormError error={error} paths={["name"]} />
    </form>
  );
}

const GRACE = [
  { seconds: 0, label: "Now" },
  { seconds: 60, label: "In 1 minute" },
  { seconds: 3600, label: "In 1 hour" },
  { seconds: 86_400, label: "In 1 day" },
];

export function Roll({
  apiKey,
  own,
  onRolled,
  onCancel,
}: {
  apiKey: Key;
  own: boolean;
  /** `oldStopsNow`: the old key stopped at the roll (no overlap). */
  onRolled: (secret: string, oldStopsNow: boolean) => void;
  onCancel: () => void;
}) {
  const [seconds, setSeconds] = useState(3600);
  const { busy, error, run } = useCall();
  const id = `roll-${apiKey.id}`;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        // The session's own key, stopped now: the session ends with the roll. A read under way,
        // answered 401, would take the tab to sign-in before the new secret is shown (api-keys.tsx
        // releases the hold at Done, or when the page is left).
        const endsSession = own && seconds === 0;
        void run(
          async () => {
            holdSessionEnd(endsSession);
            try {
              onRolled((await client.apiKeys.roll(apiKey.id, { expiresIn: seconds })).secret, seconds === 0);
            } catch (error) {
              holdSessionEnd(false);
              throw error;
            }
          },
          { leaving: true, exclusive: true },
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

export function Revoke({
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
  const { busy, error, run } = useCall();
  const revoke = () =>
    run(
      async () => {
        await client.apiKeys.revoke(apiKey.id);
        if (!own) return onDone();
        // This browser's session ends with its key (within 10 s): end it now rather than fail later.
        await signOut().catch(() => undefined);
        window.dispatchEvent(new Event(SESSION_ENDED));
      },
      { leaving: true, exclusive: true },
    );
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
