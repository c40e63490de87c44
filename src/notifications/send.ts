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
  try {
    const response = await fetch(url, {
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
    await response.body?.cancel();
  } catch (failure) {
    const name = (failure as Error).name;
    // The runtime says no more of a failed DNS lookup, connection or TLS handshake than "internal
    // error; reference = …": the attempt's log says which stage it was, so no one reads it as ours.
    error =
      name === "TimeoutError" || name === "AbortError"
        ? `no response within ${timeoutSeconds} s`
        : `request failed before any response (DNS, connection or TLS): ${(failure as Error).message}`;
  }
  return { startedAt, durationMs: Date.now() - startedAt, responseStatus, error };
}
