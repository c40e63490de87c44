/**
 * One signed webhook request (Standard Webhooks): a POST of the JSON body with the three headers,
 * timed out WEBHOOK_TIMEOUT_SECONDS after it starts. Used by deliveries and by test sends.
 */
import type { Answer } from "./attempt-outcome";
import { webhookHeaders } from "./signing";

export interface Sent extends Answer {
  startedAt: number;
  durationMs: number;
}

export async function sendSigned(env: Env, url: string, secrets: string[], id: string, body: string): Promise<Sent> {
  const timeoutSeconds = Number(env.WEBHOOK_TIMEOUT_SECONDS);
  const startedAt = Date.now();
  const headers = await webhookHeaders(secrets, id, Math.floor(startedAt / 1000), body);
  let responseStatus: number | null = null;
  let error: string | null = null;
  let response: Response | undefined;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "user-agent": "candidate-contract-service-webhooks/1",
      },
      body,
      redirect: "manual", // a redirect is not a delivery
      // Timed from this request's own start: nothing queued before it counts against it.
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    responseStatus = response.status;
  } catch (failure) {
    const name = (failure as Error).name;
    // The runtime says little more of a failed DNS lookup, connection, TLS handshake or an answer
    // that was not HTTP than "internal error; reference = …" or "Network connection lost": the
    // attempt's log says what stage it was, in the service's words, so no one reads it as the
    // service's own failure.
    const detail = runtimeDetail((failure as Error).message);
    error =
      name === "TimeoutError" || name === "AbortError"
        ? `no response within ${timeoutSeconds} s`
        : `request failed, no HTTP response (DNS, connection, TLS or an answer that was not HTTP)${detail ? `: ${detail}` : ""}`;
  }
  // The answer's body is not read; a failure to drop it changes nothing of the answer.
  if (response) await response.body?.cancel().catch(() => undefined);
  return { startedAt, durationMs: Date.now() - startedAt, responseStatus, error };
}

/**
 * What a runtime's fetch failure adds in the service's words: nothing for its opaque "internal
 * error; reference = …", the connection lost for "Network connection lost", else its message.
 */
function runtimeDetail(message: string | undefined): string | null {
  if (!message || /^internal error\b/i.test(message)) return null;
  if (/^network connection lost\.?$/i.test(message)) return "the connection was lost";
  return message.replace(/\.$/, "");
}
