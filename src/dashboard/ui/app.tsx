/**
 * The dashboard: the session first (signed out: the sign-in page), then the layout around the page
 * the address names. Pages are addressed by path under /dashboard/, so every page can be bookmarked.
 */
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import type { JSX } from "preact";
import { readSession, SESSION_ENDED, showingAccount, signOut, takeWhyEnded, type Session } from "./api";
import { BASE } from "./paths";
import { SessionContext, useCan, type Permission } from "./session";
import { ErrorNote, Loading } from "./components/notes";
import { focusPageHeading, Page } from "./components/page";
import { SignIn } from "./pages/sign-in";
import { Overview } from "./pages/overview";
import { Candidates } from "./pages/candidates";
import { CandidatePage } from "./pages/candidate";
import { Schemas } from "./pages/schemas";
import { Webhooks } from "./pages/webhooks";
import { WebhookPage } from "./pages/webhook";
import { Notifications } from "./pages/notifications";
import { Billing } from "./pages/billing";
import { ApiKeys } from "./pages/api-keys";

const NAV: { href: string; label: string; needs?: Permission }[] = [
  // The overview shows each of its parts only to a session that may read it, and says so.
  { href: `${BASE}/`, label: "Overview" },
  { href: `${BASE}/candidates`, label: "Candidates", needs: "candidates:read" },
  { href: `${BASE}/schemas`, label: "Schemas", needs: "schemas:read" },
  { href: `${BASE}/webhooks`, label: "Webhooks", needs: "webhooks:read" },
  { href: `${BASE}/notifications`, label: "Notifications", needs: "notifications:read" },
  { href: `${BASE}/billing`, label: "Billing", needs: "billing:read" },
  { href: `${BASE}/api-keys`, label: "API keys", needs: "api_keys:read" },
];

/**
 * A page the session may not read says which permission it lacks, rather than the API's 403 (the
 * navigation hides it, but its address still opens).
 */
function needs<P extends object>(permission: Permission, title: string, Shown: (props: P) => JSX.Element | null) {
  return function Guarded(props: P) {
    const can = useCan();
    if (can(permission)) return <Shown {...props} />;
    return (
      <Page title={title}>
        <p class="notice">
          This session’s key lacks <code>{permission}</code>, which this page needs. Sign in with a key that has it to
          see it.
        </p>
      </Page>
    );
  };
}

const SchemasPage = needs("schemas:read", "Schemas", Schemas);
const CandidatesPage = needs("candidates:read", "Candidates", Candidates);
const OneCandidatePage = needs("candidates:read", "Candidate", CandidatePage);
const WebhooksPage = needs("webhooks:read", "Webhooks", Webhooks);
const OneWebhookPage = needs("webhooks:read", "Webhook endpoint", WebhookPage);
const NotificationsPage = needs("notifications:read", "Notifications", Notifications);

function Layout({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const { path } = useLocation();
  const can = useCan();
  const [error, setError] = useState<unknown>(null);
  /** Signing out: the page is hidden first, so that none of its reads fails visibly under it. */
  const [leaving, setLeaving] = useState(false);
  // A new page starts at its top, with its heading in focus for keyboard and screen-reader users,
  // unless it focused a notice as it appeared (what the change that led here did: ChangeNotice).
  useEffect(() => {
    if (!document.activeElement?.matches("main .notice[role=status]")) focusPageHeading();
    setError(null); // a refused sign-out's error belongs to the page it was refused on
  }, [path]);
  return (
    <>
      <a
        class="skip"
        href="#main"
        // Focus moves into the page without a history entry: Back still goes to the page before.
        onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={`${BASE}/`}>
          Candidate Contract Service
        </a>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.filter((item) => item.needs === undefined || can(item.needs)).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={isCurrent(path, item.href) ? "page" : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            <strong title={`Account ${session.account_id}`}>{session.account_name}</strong>
            <span class="muted"> · {session.api_key ? `key “${session.api_key.name}”` : "full access"}</span>
          </span>
          <button
            type="button"
            class="secondary"
            aria-disabled={leaving || undefined}
            onClick={() => {
              if (leaving) return;
              setLeaving(true);
              setError(null);
              signOut().then(
                (signedOut) => signedOut && onSignedOut(),
                (e: unknown) => {
                  setLeaving(false);
                  setError(e);
                },
              );
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} class="focus-target">
        <ErrorNote error={error} />
        {leaving && <p role="status">Signing out…</p>}
        {/* Hidden, not taken down, while signing out: a refused sign-out gives the page back as it was
            (a secret shown once, a draft), and a read stopped under it shows nothing meanwhile. */}
        <div hidden={leaving}>
          <Router>
            <Route path={`${BASE}/`} component={Overview} />
            <Route path={`${BASE}/candidates`} component={CandidatesPage} />
            <Route path={`${BASE}/candidates/:alias`} component={OneCandidatePage} />
            <Route path={`${BASE}/schemas`} component={SchemasPage} />
            <Route path={`${BASE}/webhooks`} component={WebhooksPage} />
            <Route path={`${BASE}/webhooks/:id`} component={OneWebhookPage} />
            <Route path={`${BASE}/notifications`} component={NotificationsPage} />
            <Route path={`${BASE}/billing`} component={Billing} />
            <Route path={`${BASE}/api-keys`} component={ApiKeys} />
            <Route default component={NotFound} />
          </Router>
        </div>
      </main>
    </>
  );
}

const isCurrent = (path: string, href: string) =>
  href === `${BASE}/` ? path === href || path === BASE : path === href || path.startsWith(`${href}/`);

function NotFound() {
  return (
    <Page title="Not found">
      <p>
        There is no such page. <a href={`${BASE}/`}>Go to the overview.</a>
      </p>
    </Page>
  );
}

/**
 * The sign-in page stands alone; every other page is served only to a signed-in browser (the Worker
 * redirects the others to sign-in), so it reads its session, and returns to sign-in when it ends.
 */
function Root() {
  const { path, query, route } = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(servedSession);
  // Set as the page renders, before any of its pages' calls go out.
  showingAccount(session?.account_id);
  /** Why the session this browser had no longer signs in, told once (api.ts). */
  const [whyEnded, setWhyEnded] = useState(takeWhyEnded);
  const [error, setError] = useState<unknown>(null);
  const signingIn = path === SIGN_IN;
  const [leaving, setLeaving] = useState(false);
  useEffect(() => {
    const ended = () => {
      setLeaving(true);
      location.assign(`${SIGN_IN}?${new URLSearchParams({ next: location.pathname + location.search, ended: "1" })}`);
    };
    window.addEventListener(SESSION_ENDED, ended);
    return () => window.removeEventListener(SESSION_ENDED, ended);
  }, []);
  // Back in view, the session is read again: another tab may have signed in since with another key
  // of this account, whose permissions the API now applies to this tab's calls too. Its controls
  // follow them. (Signed out, or in to another account: this tab's next call says so, as ever.)
  useEffect(() => {
    const reread = () => {
      if (document.visibilityState !== "visible" || !session) return;
      readSession().then(
        (now) => {
          if (now && now.account_id === session.account_id && JSON.stringify(now) !== JSON.stringify(session))
            setSession(now);
        },
        () => {}, // unreachable now: the next call says so
      );
    };
    document.addEventListener("visibilitychange", reread);
    return () => document.removeEventListener("visibilitychange", reread);
  }, [session]);
  // Unknown, or signed out here (and now Back to a page): the Worker's word decides, not this tab's.
  useEffect(() => {
    if (!signingIn && !session && !leaving)
      readSession().then((s) => (s ? setSession(s) : window.dispatchEvent(new Event(SESSION_ENDED))), setError);
  }, [signingIn, session, leaving]);
  if (signingIn) {
    return (
      <SignIn
        current={session ?? undefined}
        onKeep={() => route(returnPath(query.next), true)}
        notice={
          query.signed_out
            ? "You are signed out."
            : (whyEnded ??
              // A tab left on this address may be signed in again since: then nothing ended.
              (query.ended && !session
                ? "Your session ended: it was signed out, expired, or the key it signed in with was revoked. Sign in again."
                : null))
        }
        onSignedIn={(signedIn) => {
          setWhyEnded(undefined);
          setSession(signedIn);
          route(returnPath(query.next), true);
        }}
      />
    );
  }
  if (error) return <ErrorNote error={error} />;
  if (!session) return <Loading />;
  return (
    <SessionContext.Provider value={session}>
      <Layout
        session={session}
        onSignedOut={() => {
          setSession(null);
          route(`${SIGN_IN}?signed_out=1`, true);
        }}
      />
    </SessionContext.Provider>
  );
}

const SIGN_IN = `${BASE}/sign-in`;

/** The session the Worker served the page with (src/dashboard/pages.ts), read once: a read saved. */
function servedSession(): Session | undefined {
  const served = document.getElementById("app")?.dataset.session;
  return served ? (JSON.parse(served) as Session) : undefined;
}

/**
 * Where to go after signing in: the dashboard page the sign-in was asked from, as this origin
 * resolves it (so `..` cannot step out) and only if it decodes; else the overview.
 */
function returnPath(next: string | undefined): string {
  if (!next) return `${BASE}/`;
  const url = new URL(next, location.origin);
  try {
    decodeURIComponent(url.pathname);
  } catch {
    return `${BASE}/`;
  }
  const ok = url.origin === location.origin && url.pathname.startsWith(`${BASE}/`) && url.pathname !== SIGN_IN;
  return ok ? url.pathname + url.search : `${BASE}/`;
}

export function App() {
  return (
    <LocationProvider scope={BASE}>
      <Root />
    </LocationProvider>
  );
}
