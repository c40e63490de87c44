/**
 * The dashboard's one way to the service: the typed client, as any customer uses it, authenticated
 * by the session cookie the browser sends with each call (no key in the page). Every number the
 * pages show comes from /v1 through it, so the dashboard cannot disagree with the API.
 */
import {
  CandidateContractError,
  createCandidateContractClient,
  errorFromResponse,
  type components,
} from "@candidate-contract-service/client";

/** Dispatched on window when a call finds the session gone; the app then goes to sign-in, which says so. */
export const SESSION_ENDED = "ccs:session-ended";

/**
 * Why the session ended, in the API's words (its 401 INVALID_SESSION), kept in this tab for the
 * sign-in page it goes to next: that 401 cleared the cookie, so the Worker cannot tell it again.
 */
const ENDED_BECAUSE = "ccs:session-ended-because";

async function keepWhyEnded(response: Response) {
  const body = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (body?.error?.code === "INVALID_SESSION" && body.error.message)
    sessionStorage.setItem(ENDED_BECAUSE, body.error.message);
}

/** Why the session ended, once: kept by the call that found it ended, or told by the Worker with the page. */
export function takeWhyEnded(): string | undefined {
  const kept = sessionStorage.getItem(ENDED_BECAUSE);
  sessionStorage.removeItem(ENDED_BECAUSE);
  return document.getElementById("app")?.dataset.notice || kept || undefined;
}

/**
 * The account this tab shows, sent with each call (`Dashboard-Account`): the cookie is the
 * browser's, and another tab may since have signed in to another account. The Worker then answers
 * 401 and does nothing, and this tab goes to sign-in, instead of acting on that account.
 */
let shownAccount: string | undefined;
export function showingAccount(accountId: string | undefined) {
  shownAccount = accountId;
}

/** Calls to /v1 not yet answered: sign-out waits for them, so none is answered 401 after it. */
let inFlight = 0;
/**
 * Aborted when signing out, once the wait for calls under way is over: a call still under way then
 * (a slow machine), or made after, is dropped rather than answered 401 by the ended session.
 */
let signingOut = new AbortController();

/** A session is found or made in this tab (signed in here, in another tab, or a page shown again): its calls go out again. */
function callsLive() {
  if (signingOut.signal.aborted) signingOut = new AbortController();
}

/**
 * While on: a call that finds the session ended does not take the tab to sign-in. Held while a
 * roll of the session's own key ends it, so that the new secret stays shown until it is copied.
 */
let endHeld = false;
export function holdSessionEnd(on: boolean) {
  endHeld = on;
}

/**
 * Every call to /v1: counted while in flight, and watched for the session's end (signed out
 * elsewhere, expired, its key revoked), whichever page made it and whether or not it shows the error.
 */
const watched: typeof fetch = async (input, init) => {
  inFlight++;
  try {
    const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const signal = own ? AbortSignal.any([own, signingOut.signal]) : signingOut.signal;
    const request = new Request(input, { ...init, signal });
    if (shownAccount) request.headers.set("Dashboard-Account", shownAccount);
    const response = await globalThis.fetch(request);
    // These calls carry only the cookie: any 401 means it no longer signs in (INVALID_SESSION), or is
    // gone (MISSING_API_TOKEN: signed out in another tab). Sign-in's own 401s do not come this way.
    if (response.status === 401) {
      await keepWhyEnded(response.clone());
      if (!endHeld) window.dispatchEvent(new Event(SESSION_ENDED));
    }
    return response;
  } finally {
    inFlight--;
  }
};

export const client = createCandidateContractClient({
  baseUrl: location.origin,
  maxRetries: 2,
  // Longer than a webhook test send may take (the service waits up to 15 s for the endpoint).
  timeoutMs: 25_000,
  fetch: watched,
});
export const api = client.api;
export { CandidateContractError };
export type Models = components["schemas"];

/** What a call answered: the client throws on every error, so a finished call has data. */
export async function ok<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}

/** What GET /dashboard/session answers: who is signed in, and what they may do. */
export interface Session {
  account_id: string;
  account_name: string;
  signed_in_with: "api_key" | "sign_in_link";
  api_key: { id: string; name: string; redacted: string; expires_at: string | null } | null;
  permissions: Models["ApiKey"]["permissions"];
  full_access: boolean;
  created_at: string;
  expires_at: string;
}

/** The session, or null when signed out (401). */
export async function readSession(): Promise<Session | null> {
  const response = await fetch("/dashboard/session", { headers: { Accept: "application/json" } });
  if (response.status === 401) return null;
  if (!response.ok) throw await errorFromResponse(response);
  callsLive();
  return (await response.json()) as Session;
}

/** Signs in with a sign-in link's code or a pasted API key; the cookie comes with the answer. */
export async function signIn(credentials: { code: string } | { key: string }): Promise<Session> {
  const response = await fetch("/dashboard/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(credentials),
  });
  if (!response.ok) throw await errorFromResponse(response);
  callsLive();
  return (await response.json()) as Session;
}

/**
 * Ends this browser's session; false when this tab shows another account than the one signed in
 * now (another tab signed in since): nobody is signed out, and the tab goes to sign-in as on any
 * call that finds it so.
 */
export async function signOut(): Promise<boolean> {
  // The page's reads still under way finish first (for at most 3 s): ended under them, they would fail.
  for (const until = Date.now() + 3000; inFlight > 0 && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 25));
  signingOut.abort();
  // Named like every call: a tab left on another account signs out nobody (401), and goes to sign-in.
  let response: Response;
  try {
    response = await fetch("/dashboard/session", {
      method: "DELETE",
      headers: shownAccount ? { "Dashboard-Account": shownAccount } : {},
    });
  } catch (unreached) {
    callsLive(); // not signed out: the page's calls work again
    throw unreached;
  }
  if (response.status === 401) {
    await keepWhyEnded(response.clone());
    window.dispatchEvent(new Event(SESSION_ENDED));
    return false;
  }
  if (!response.ok) {
    callsLive(); // still signed in: the page's calls work again
    throw await errorFromResponse(response);
  }
  return true;
}
