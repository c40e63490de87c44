/**
 * API keys: the account's keys (newest first, by status), a new key's secret shown once, and per
 * key rename, roll and revoke. What the session may not do is hidden; what the API still refuses
 * (a key managing a key that can do more than it) is shown where it was asked.
 */
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, holdSessionEnd, ok, type Models } from "../api";
import { useLoad } from "../load";
import { useCan, useSession } from "../session";
import { Field } from "../components/fields";
import { ChangeNotice, Empty, ErrorNote, Loading } from "../components/notes";
import { Page, focusPageHeading } from "../components/page";
import { Pager, useCursor } from "../components/pager";
import { countOf, SecretOnce } from "../components/values";
import { CreateKeyForm } from "./api-keys/create-form";
import { KeyRow } from "./api-keys/key-row";
import { TableWrap } from "../components/table-wrap";

type Status = "" | Models["ApiKey"]["status"];
const STATUSES: { value: Status; label: string }[] = [
  { value: "", label: "All" },
  { value: "active", label: "Active" },
  { value: "expired", label: "Expired" },
  { value: "revoked", label: "Revoked" },
];
const labelOf = (status: Status) => STATUSES.find((s) => s.value === status)!.label;
const LIMIT = 50;
/** The most keys not revoked an account may have (the API's 409 API_KEY_LIMIT_REACHED past it). */
const MAX_KEYS = 100;

interface Shown {
  label: string;
  secret: string;
  /** This session ends with the key it replaced (when that stops: then the notice below says so). */
  signsOut: boolean;
  /** It has ended already: the old key stopped at the roll. */
  endedNow: boolean;
}

export function ApiKeys() {
  const can = useCan();
  if (can("api_keys:read")) return <Keys />;
  return (
    <Page title="API keys">
      <p class="notice">
        This session cannot see keys: it needs the <code>api_keys:read</code> permission.
      </p>
    </Page>
  );
}

function Keys() {
  const can = useCan();
  const session = useSession();
  const canWrite = can("api_keys:write");
  const { path, query, route } = useLocation();
  // In the address, like every list's filter: Back and a bookmark keep it.
  const status = STATUSES.find((s) => s.value && s.value === query.status)?.value ?? "";
  const [creating, setCreating] = useState(false);
  // The secret lives only here, in memory, until Done: never in the address or anything kept.
  const [shown, setShown] = useState<Shown | null>(null);
  /** What a change did that the list no longer shows (a key revoked leaves a list of active ones), and under which filter. */
  const [notice, setNotice] = useState<{ text: string; status: Status } | null>(null);
  const cursor = useCursor();
  const keys = useLoad(
    () =>
      ok(
        api.GET("/v1/api_keys", {
          params: { query: { limit: LIMIT, after: cursor.after, ...(status ? { status } : {}) } },
        }),
      ),
    [status, cursor.after],
  );
  // How many are not revoked (active and expired), to say how much room is left: one page of each.
  const held = useLoad(async () => {
    const count = async (status: "active" | "expired") =>
      (await ok(api.GET("/v1/api_keys", { params: { query: { status, limit: MAX_KEYS } } }))).data.length;
    const [active, expired] = await Promise.all([count("active"), count("expired")]);
    return { active, expired };
  }, []);
  /** Reads the list and the count again, after a change. */
  const reload = () => {
    keys.reload();
    held.reload();
  };

  // Left before Done (the nav, Back): a session a roll ended goes to sign-in at its next call again.
  useEffect(() => () => holdSessionEnd(false), []);
  const list = keys.data?.data;
  /** The session ended at a roll of its own key: the page keeps only the secret, to copy before signing in. */
  const ended = shown?.endedNow === true;
  return (
    <Page
      title="API keys"
      actions={
        canWrite &&
        !creating &&
        !ended && (
          <button type="button" onClick={() => setCreating(true)}>
            New key
          </button>
        )
      }
    >
      {!canWrite && (
        <p class="notice">
          This session can see keys but not change them: that needs <code>api_keys:write</code>.
        </p>
      )}
      {shown && (
        <SecretOnce
          label={shown.label}
          secret={shown.secret}
          onDone={() => {
            setShown(null);
            // An ended session's secret is copied: its next call (401) goes to sign-in, saying why.
            holdSessionEnd(false);
            reload();
          }}
        />
      )}
      {notice?.status === status && <ChangeNotice text={notice.text} shown={notice} onClose={() => setNotice(null)} />}
      {shown?.signsOut &&
        (shown.endedNow ? (
          <p class="notice">
            The old key stopped working at the roll, and this browser’s session with it: copy the new secret now, then
            sign in again with it.
          </p>
        ) : (
          <p class="notice">
            This browser signs out when the old key stops working: sign in again with the new secret.
          </p>
        ))}
      {!ended && (
        <>
          {creating && (
            <CreateKeyForm
              onCreated={(key) => {
                setCreating(false);
                setShown({
                  label: `The secret of “${key.name}”`,
                  secret: key.secret,
                  signsOut: false,
                  endedNow: false,
                });
                reload();
              }}
              onCancel={() => (setCreating(false), focusPageHeading())}
            />
          )}
          {held.data !== undefined && <Room {...held.data} />}
          <div class="row list-filters">
            <Field id="key-status" label="Status">
              <select
                id="key-status"
                value={status}
                onChange={(e) =>
                  route(
                    e.currentTarget.value ? `${path}?${new URLSearchParams({ status: e.currentTarget.value })}` : path,
                  )
                }
              >
                {STATUSES.map((s) => (
                  <option key={s.value} value={s.value}>
                    {s.label}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <ErrorNote error={keys.error} />
          {keys.loading && !list && <Loading />}
          {/* Said after each read (a status chosen, a page turned), so a screen reader hears what it found. */}
          <p class="visually-hidden" role="status">
            {list && !keys.loading ? `${countOf(list.length, "key")} on this page.` : ""}
          </p>
          {list && list.length === 0 && !cursor.hasPrevious && (
            <Empty title={status ? `No ${status} keys.` : "No keys yet."}>
              {status ? (
                <p>Choose “All” to see every key.</p>
              ) : canWrite ? (
                <p>
                  Make one with <strong>New key</strong>, or <code>POST /v1/api_keys</code> with{" "}
                  <code>{`{"name": "...", "permissions": ["events:write"]}`}</code>.
                </p>
              ) : (
                <p>A session with api_keys:write can make one.</p>
              )}
            </Empty>
          )}
          {list && list.length > 0 && (
            <>
              <TableWrap label="API keys" busy={keys.loading}>
                <table class="keys">
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">Status</th>
                      <th scope="col">Permissions</th>
                      <th scope="col">Created</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Last used</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((key) => (
                      <KeyRow
                        key={key.id}
                        apiKey={key}
                        own={key.id === session.api_key?.id}
                        canWrite={canWrite}
                        onChanged={reload}
                        onRevokedAway={
                          status && status !== "revoked"
                            ? (name) =>
                                setNotice({
                                  text: `“${name}” is revoked, so it is no longer listed under “${labelOf(status)}”.`,
                                  status,
                                })
                            : undefined
                        }
                        onSecret={(secret) => {
                          setShown(secret);
                          // Reading the list with a key that has just stopped would end the session before the secret is copied.
                          if (!secret.endedNow) reload();
                        }}
                      />
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            </>
          )}
          <Pager cursor={cursor} next={keys.data?.next_cursor ?? null} loading={keys.loading} />
        </>
      )}
    </Page>
  );
}

/** How much room the key limit leaves; expired keys take it until revoked. */
function Room({ active, expired }: { active: number; expired: number }) {
  const held = Math.min(MAX_KEYS, active + expired);
  const counted = `${held} of ${MAX_KEYS} keys not revoked (${active} active, ${expired} expired)`;
  if (held < MAX_KEYS) return <p class="muted">{counted}.</p>;
  return (
    <p class="notice">
      {counted}: the most an account may have, and expired keys count until revoked. Revoke a key you no longer use
      {expired > 0 ? " (an expired one first)" : ""} to make room for a new key or a roll.
    </p>
  );
}
