/**
 * Sign-in: by a one-time link (`/dashboard/sign-in#code=...`; the code is in the fragment, which no
 * request carries, and is taken out of the address before anything else happens) or by pasting an
 * API key, which is sent once and never kept by the page.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { signIn, type Session } from "../api";
import { Field } from "../components/fields";
import { ErrorNote } from "../components/notes";
import { useCall } from "../components/use-call";
import { useFocusOnShow } from "../components/page";

/** Served by `npm run dev` on this machine (a loopback address), not by a deployed service. */
const LOCAL_DEV = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])\.?$/.test(location.hostname);

/** The code of a sign-in link, taken out of the address (and so out of history) as it is read. */
function takeCodeFromAddress(): string | null {
  const code = new URLSearchParams(location.hash.slice(1)).get("code");
  if (location.hash) history.replaceState(history.state, "", location.pathname + location.search);
  return code;
}

export function SignIn({
  current,
  notice,
  onSignedIn,
  onKeep,
}: {
  current?: Session;
  notice: string | null;
  onSignedIn: (session: Session) => void;
  onKeep: () => void;
}) {
  const { busy, error, run } = useCall();
  const [key, setKey] = useState("");
  /** A link's code held (in memory only) while a browser that is signed in already is asked first. */
  const [held, setHeld] = useState<string | null>(null);
  const started = useRef(false);
  // The question appears with nothing pressed: focused, it is read out, and its buttons are next.
  const question = useFocusOnShow<HTMLDivElement>([held]);

  /** What the last attempt sent: a link's refusal is shown with its question, a key's below the form. */
  const [tried, setTried] = useState<"link" | "key" | null>(null);
  const attempt = (credentials: { code: string } | { key: string }) => {
    setTried("code" in credentials ? "link" : "key");
    return run(async () => onSignedIn(await signIn(credentials)), { leaving: true, exclusive: true });
  };
  const linkRefused = held !== null && tried === "link" && error !== null && error !== undefined;

  useEffect(() => {
    document.title = "Sign in · Candidate Contract Service";
    const take = () => {
      const code = takeCodeFromAddress();
      // Signed in already: a link (perhaps someone else's, for their account) must not switch accounts unasked.
      if (code && current) setHeld(code);
      else if (code) void attempt({ code });
    };
    if (!started.current) take();
    started.current = true;
    // Another link pasted into this tab differs only after `#`: the browser loads nothing, so read it here.
    window.addEventListener("hashchange", take);
    return () => window.removeEventListener("hashchange", take);
  }, []);

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the dashboard</h1>
      {busy && !key && (
        <p role="status" class="muted">
          Signing in…
        </p>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {held && current && (
        <div class="notice focus-target" role="group" aria-label="Use this sign-in link?" tabIndex={-1} ref={question}>
          <p>
            This browser is signed in to <strong>{current.account_name}</strong> already. Use this sign-in link instead?
            It ends that session, and the link may be for another account.
          </p>
          {/* Refused (used, expired): said here, where it was asked, and not offered again. */}
          {linkRefused && <ErrorNote error={error} />}
          <div class="actions">
            {!linkRefused && (
              <button type="button" aria-disabled={busy || undefined} onClick={() => void attempt({ code: held })}>
                Use the link
              </button>
            )}
            <button type="button" class="secondary" onClick={onKeep}>
              Stay in {current.account_name}
            </button>
          </div>
        </div>
      )}
      {current && !held && (
        <div class="notice">
          <p>
            This browser is signed in to <strong>{current.account_name}</strong>.
          </p>
          <div class="actions">
            <button type="button" class="secondary" onClick={onKeep}>
              Go on as {current.account_name}
            </button>
          </div>
        </div>
      )}
      {/* Where links come from: the commands only on a developer's own machine, where they work. */}
      {LOCAL_DEV ? (
        <p>
          Open a sign-in link (<code>npm run dev</code> prints one at every start;{" "}
          <code>npm run -s accounts -- sign-in-link --account ACCOUNT_ID</code> makes one), or paste an API key.
        </p>
      ) : (
        <p>Open a sign-in link from your account's administrator, or paste an API key.</p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void attempt({ key: key.trim() });
        }}
      >
        <Field id="key" label="API key" hint="cct_… — sent once to start a session, never stored by this page.">
          <input
            id="key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            aria-describedby="key-hint"
            onInput={(e) => setKey(e.currentTarget.value)}
            required
          />
        </Field>
        {/* aria-disabled while signing in: a refused key keeps the focus here (a disabled button would drop it). */}
        <button type="submit" disabled={key.trim() === ""} aria-disabled={busy || undefined}>
          Sign in
        </button>
      </form>
      {/* Below what was pressed: a refusal shown or cleared moves nothing a second press aims at. */}
      {!linkRefused && <ErrorNote error={error} />}
    </main>
  );
}
