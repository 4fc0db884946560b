import { checkTimestamp } from "@edgeloop/protocol";
import { verifyHmacSha256Hex } from "../../../../runtime/hmac-hex.js";
import { SLACK_TOLERANCE_SECONDS } from "./settings.js";

/**
 * Slack's request signing (api.slack.com/authentication/verifying-requests-from-slack):
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:{timestamp}:{raw body}")>`, with
 * `X-Slack-Request-Timestamp` within five minutes so a captured request cannot be replayed.
 */
export async function verifySlackRequest(
  headers: Headers,
  rawBody: string,
  signingSecret: string,
  nowMs: number,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const timestamp = headers.get("x-slack-request-timestamp");
  const fresh = checkTimestamp(timestamp, nowMs, SLACK_TOLERANCE_SECONDS);
  if (!fresh.ok) return { ok: false, reason: `X-Slack-Request-Timestamp: ${fresh.reason}` };
  // Headers has already stripped the value's surrounding whitespace.
  const signature = headers.get("x-slack-signature");
  if (!signature?.startsWith("v0=")) return { ok: false, reason: "X-Slack-Signature is not v0=<hex>" };
  const ok = await verifyHmacSha256Hex([signingSecret], signature.slice(3), `v0:${timestamp}:${rawBody}`);
  return ok ? { ok: true } : { ok: false, reason: "X-Slack-Signature does not match" };
}
