/**
 * Webhook signing, shared by outbound webhook tools and (so the schemes match) inbound webhook
 * checks: `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of "${timestamp}.${body}">` with the unix
 * seconds in `X-Webhook-Timestamp`. Binding the timestamp into the MAC lets a receiver reject
 * replays of an old body. Pure Web Crypto, so workerd and Node run the same code.
 *
 * Same scheme and key convention as worker/signing.ts (inbound): a secret written `whsec_<base64>`
 * is the decoded key, any other secret its UTF-8 bytes; so one secret works in both directions.
 */

const encoder = new TextEncoder();

/** The key bytes of a secret: `whsec_<base64>` decoded, anything else as UTF-8. */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith("whsec_")) {
    try {
      return Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
    } catch {
      // not valid base64: use the text as written, like the inbound side
    }
  }
  return new Uint8Array(encoder.encode(secret));
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secretKeyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message));
  return toHex(mac);
}

/** The `X-Webhook-Signature` value for a body sent at `timestampSecs`. */
export async function webhookSignature(secret: string, timestampSecs: number, body: string): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, `${timestampSecs}.${body}`)}`;
}

/** Constant-time check of a received `X-Webhook-Signature` header against the expected one. */
export async function verifyWebhookSignature(
  secret: string,
  timestampSecs: number,
  body: string,
  header: string,
): Promise<boolean> {
  const expected = await webhookSignature(secret, timestampSecs, body);
  if (header.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ header.charCodeAt(i);
  return diff === 0;
}
