import { sameSecret, verifyHmacSha256Hex } from "../../../../runtime/hmac-hex.js";
import type { InboundResult } from "../../platform.js";

/**
 * Meta's webhook signature (developers.facebook.com/docs/graph-api/webhooks/getting-started):
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`. Meta signs no timestamp;
 * a replay is caught by the message id, the dedupe key.
 */
export async function verifyMetaSignature(
  headers: Headers,
  rawBody: string,
  appSecret: string,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  // Headers has already stripped the value's surrounding whitespace.
  const header = headers.get("x-hub-signature-256");
  if (!header?.startsWith("sha256=")) return { ok: false, reason: "X-Hub-Signature-256 is not sha256=<hex>" };
  const ok = await verifyHmacSha256Hex([appSecret], header.slice(7), rawBody);
  return ok ? { ok: true } : { ok: false, reason: "X-Hub-Signature-256 does not match" };
}

/**
 * The GET handshake Meta sends when the webhook is set up: `hub.mode=subscribe`, the verify token
 * typed in the app dashboard, and `hub.challenge`, which must come back as the plain-text body.
 */
export async function answerVerifyHandshake(url: URL, verifyToken: string): Promise<InboundResult> {
  const mode = url.searchParams.get("hub.mode");
  const token = url.searchParams.get("hub.verify_token");
  const challenge = url.searchParams.get("hub.challenge");
  if (mode !== "subscribe" || challenge === null)
    return { ok: false, status: 400, reason: "not a subscribe handshake" };
  if (token === null || !(await sameSecret(token, verifyToken)))
    return { ok: false, status: 403, reason: "hub.verify_token does not match" };
  return { ok: true, events: [], immediate: { status: 200, body: challenge } };
}
