import { signHmacWebhook, signStandardWebhook } from "@edgeloop/protocol/webhook-signatures";
import { guardedFetch, OutboundRefused } from "../../../runtime/guarded-fetch.js";
import type { OutboundUrlPolicy } from "../../../runtime/outbound-url.js";

/** Give up on a receiver that has not acknowledged for this long. */
export const REPLY_EXPIRY_MS = 24 * 3600 * 1000;

export function replyBackoffMs(attempts: number): number {
  const base = Math.min(1000 * 2 ** attempts, 5 * 60_000);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

/**
 * One delivery attempt, signed the way inbound webhooks are (the hmac `X-Webhook-Signature` and the
 * Standard Webhooks headers), so the receiver can verify it with the same secret. The id is stable
 * across retries, so a receiver can drop a repeat. The URL and every redirect must pass the
 * outbound rule (the front door checked the URL when the message came, but the deployment's flag
 * may have changed since); a refusal is final.
 */
export async function deliverSigned(
  url: string,
  id: string,
  payload: unknown,
  secret: string | null,
  outbound: OutboundUrlPolicy,
  fetchImpl: typeof fetch = fetch,
): Promise<{ ok: true } | { ok: false; retryable: boolean; error: string }> {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "user-agent": "edgeloop",
  };
  if (secret) {
    headers["webhook-signature"] = await signStandardWebhook(secret, id, timestamp, body);
    headers["x-webhook-signature"] = await signHmacWebhook(secret, timestamp, body);
    headers["x-webhook-timestamp"] = timestamp;
  }
  try {
    const res = await guardedFetch(outbound, fetchImpl)(url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(15_000),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { ok: true };
    // 4xx other than 408/429 will not get better by retrying.
    const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
    return { ok: false, retryable, error: `HTTP ${res.status}` };
  } catch (e) {
    if (e instanceof OutboundRefused) return { ok: false, retryable: false, error: `refused: ${e.message}` };
    return { ok: false, retryable: true, error: String(e) };
  }
}
