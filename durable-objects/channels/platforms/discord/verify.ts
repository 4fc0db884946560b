import { checkTimestamp } from "@edgeloop/protocol";
import { DISCORD_TOLERANCE_SECONDS } from "./settings.js";

const enc = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return null;
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

/**
 * Discord's interaction signature (discord.com/developers/docs/interactions/overview, "Setting Up an
 * Endpoint"): `X-Signature-Ed25519` is the hex Ed25519 signature of `timestamp + raw body` under the
 * application's public key, `X-Signature-Timestamp` the timestamp. Verified with Web Crypto's
 * Ed25519, which workerd and Node both implement, so no library is needed. A stale timestamp is
 * refused as a replay.
 */
export async function verifyDiscordRequest(
  headers: Headers,
  rawBody: string,
  publicKeyHex: string,
  nowMs: number,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const timestamp = headers.get("x-signature-timestamp");
  const fresh = checkTimestamp(timestamp, nowMs, DISCORD_TOLERANCE_SECONDS);
  if (!fresh.ok) return { ok: false, reason: `X-Signature-Timestamp: ${fresh.reason}` };
  // Headers has already stripped the value's surrounding whitespace.
  const signature = hexBytes(headers.get("x-signature-ed25519") ?? "");
  if (signature?.length !== 64) return { ok: false, reason: "X-Signature-Ed25519 is not 64 hex bytes" };
  const publicKey = hexBytes(publicKeyHex);
  if (!publicKey) return { ok: false, reason: "DISCORD_PUBLIC_KEY is not hex" };
  const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  const ok = await crypto.subtle.verify({ name: "Ed25519" }, key, signature, enc.encode(`${timestamp}${rawBody}`));
  return ok ? { ok: true } : { ok: false, reason: "X-Signature-Ed25519 does not match" };
}
