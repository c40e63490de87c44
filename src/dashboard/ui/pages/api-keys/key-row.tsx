/**
 * One key in the list, its Rename, Roll and Revoke buttons, and the panel below its row that opens
 * the chosen action's form (key-actions.tsx), with the focus moved in and back.
 */
import { useRef, useState } from "preact/hooks";
import type { Models } from "../../api";
import { useFocusInPlace } from "../../components/page";
import { useCan, useSession } from "../../session";
import { StatusBadge, Time } from "../../components/values";
import { Rename, Revoke, Roll } from "./key-actions";
import { compact } from "./permissions";

type Key = Models["ApiKey"];
type Action = "rename" | "roll" | "revoke" | null;
export const COLUMNS = 6;

export interface RowProps {
  apiKey: Key;
  /** The key this session signed in with. */
  own: boolean;
  canWrite: boolean;
  onChanged: () => void;
  /**
   * Called instead of keeping the focus in the row when a revoked key leaves the list shown (it is
   * filtered to active or expired keys): the row is about to go, and its buttons with it.
   */
  onRevokedAway?: (name: string) => void;
  /**
   * A new secret to show once; `signsOut`: this session ends with the old key; `endedNow`: it has
   * already (its next call would be refused, and the page would leave the secret for sign-in).
   */
  onSecret: (secret: { label: string; secret: string; signsOut: boolean; endedNow: boolean }) => void;
}

export function KeyRow({ apiKey, own, canWrite, onChanged, onRevokedAway, onSecret }: RowProps) {
  const [action, setAction] = useState<Action>(null);
  /** Rolled from this row: the list is not read again while this session's own old key still works (api-keys.tsx). */
  const [rolled, setRolled] = useState(false);
  const replaced = apiKey.replaced_by !== null || rolled;
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
  const panel = `key-${apiKey.id}-action`;
  // A key changes only keys that can do no more than it (a full-access one only by full access):
  // what this session may not change is not offered, and says why.
  const session = useSession();
  const can = useCan();
  const outranks = !session.full_access && (apiKey.full_access || apiKey.permissions.some((p) => !can(p)));
  // A rolled key keeps the old one's expiry, which a key may not give past its own.
  const sessionKeyEnds = session.api_key?.expires_at;
  const outlives =
    sessionKeyEnds != null &&
    (apiKey.expires_at === null || Date.parse(apiKey.expires_at) > Date.parse(sessionKeyEnds));
  return (
    <>
      <tr>
        <th scope="row" class="key-name">
          <span class="name">{apiKey.name}</span> {own && <span class="badge own">this session’s key</span>}
          <div class="mono muted">{apiKey.redacted}</div>
          {canWrite && outranks && (
            <div class="muted">
              It can do more than this session’s key, so only a key that can do all it can changes it.
            </div>
          )}
          {canWrite && !outranks && outlives && apiKey.status === "active" && !replaced && (
            <div class="muted">
              It expires later than this session’s key, so only a key that expires no earlier rolls it.
            </div>
          )}
          {canWrite && !outranks && (
            <div class="row-actions">
              <button
                type="button"
                class="secondary small"
                aria-expanded={action === "rename"}
                aria-controls={panel}
                ref={(b) => void (toggles.current.rename = b)}
                onClick={() => open("rename")}
                aria-label={`Rename ${apiKey.name}`}
              >
                Rename
              </button>
              {apiKey.status === "active" && !replaced && !outlives && (
                <button
                  type="button"
                  class="secondary small"
                  aria-expanded={action === "roll"}
                  aria-controls={panel}
                  ref={(b) => void (toggles.current.roll = b)}
                  onClick={() => open("roll")}
                  aria-label={`Roll ${apiKey.name}`}
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
                  aria-label={`Revoke ${apiKey.name}`}
                >
                  Revoke
                </button>
              )}
            </div>
          )}
        </th>
        <td>
          <StatusBadge status={apiKey.status} />
          {replaced && apiKey.status === "active" && <div class="muted small-text">Replaced by a roll</div>}
          {apiKey.revoked_at && (
            <div class="muted small-text">
              <Time iso={apiKey.revoked_at} />
            </div>
          )}
        </td>
        <td>
          {apiKey.full_access ? (
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
                  onRolled={(secret, oldStopsNow) => {
                    setRolled(true);
                    close();
                    onSecret({
                      label: `The new secret of “${apiKey.name}”`,
                      secret,
                      signsOut: own,
                      endedNow: own && oldStopsNow,
                    });
                  }}
                  onCancel={close}
                />
              )}
              {action === "revoke" && (
                <Revoke
                  apiKey={apiKey}
                  own={own}
                  onDone={() => {
                    done();
                    if (onRevokedAway) onRevokedAway(apiKey.name);
                    // The re-read row has no Roll or Revoke: Rename, always there, holds the focus.
                    else toggles.current.rename?.focus();
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
