/**
 * Webhook signatures, as pure functions over Web Crypto (no Node or Workers-only APIs), so one
 * module verifies inbound webhooks and signs outbound deliveries (reply_url, webhook tools).
 *
 * Two schemes:
 * - hmac: `X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, "${timestamp}.${body}")>` with
 *   `X-Webhook-Timestamp: <unix seconds>`. The timestamp is signed along so a captured request
 *   cannot be replayed later with a fresh timestamp.
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256(key, "${id}.${timestamp}.${body}")>`
 *   (several space-separated signatures allowed), `webhook-id`, `webhook-timestamp`.
 *
 * A secret written `whsec_<base64>` is the base64-decoded key (the Standard Webhooks convention);
 * any other secret is its UTF-8 bytes, so one secret works for both schemes and both directions.
 * Verification goes through `crypto.subtle.verify`, which compares in constant time.
 */

const enc = new TextEncoder();

/** The key bytes of a secret: `whsec_<base64>` decoded, anything else as UTF-8. */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith("whsec_")) {
    const decoded = base64ToBytes(secret.slice("whsec_".length));
    if (decoded) return decoded;
  }
  // Copied into a fresh ArrayBuffer: some lib typings allow encode() a shared buffer.
  return new Uint8Array(enc.encode(secret));
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secretKeyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

async function hmac(secret: string, message: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), enc.encode(message)));
}

/** What the hmac scheme signs: `${timestamp}.${body}` (the body as sent, raw). */
export function hmacSignedContent(timestamp: string, body: string): string {
  return `${timestamp}.${body}`;
}

/** What Standard Webhooks signs: `${id}.${timestamp}.${body}`. */
export function standardSignedContent(id: string, timestamp: string, body: string): string {
  return `${id}.${timestamp}.${body}`;
}

/** The `X-Webhook-Signature` value: `sha256=<hex>`. */
export async function signHmacWebhook(secret: string, timestamp: string, body: string): Promise<string> {
  return `sha256=${toHex(await hmac(secret, hmacSignedContent(timestamp, body)))}`;
}

/** The `webhook-signature` value: `v1,<base64>`. */
export async function signStandardWebhook(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
): Promise<string> {
  return `v1,${bytesToBase64(await hmac(secret, standardSignedContent(id, timestamp, body)))}`;
}

export type VerifyResult = { ok: true; secretIndex: number } | { ok: false; reason: string };

/** Unix seconds within `toleranceSeconds` of `nowMs`, either way (clocks drift both ways); refused when either is NaN. */
export function checkTimestamp(
  timestamp: string | null | undefined,
  nowMs: number,
  toleranceSeconds: number,
): { ok: true } | { ok: false; reason: string } {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: "timestamp missing or not unix seconds" };
  const skew = Math.abs(nowMs / 1000 - Number(timestamp));
  // Written so that it fails closed: with a NaN clock or tolerance every comparison is false, so
  // `skew > toleranceSeconds` would let any timestamp through; `!(skew <= …)` refuses it instead.
  if (!(skew <= toleranceSeconds)) return { ok: false, reason: `timestamp outside the ${toleranceSeconds}s tolerance` };
  return { ok: true };
}

/**
 * The hmac scheme: `header` is `sha256=<hex>`. Every secret is tried (rotation) and all are checked, so
 * the time taken does not say which one matched.
 */
export async function verifyHmacWebhook(
  secrets: readonly string[],
  header: string | null | undefined,
  timestamp: string | null | undefined,
  body: string,
  opts: { nowMs: number; toleranceSeconds: number },
): Promise<VerifyResult> {
  const ts = checkTimestamp(timestamp, opts.nowMs, opts.toleranceSeconds);
  if (!ts.ok) return ts;
  const m = header?.trim().match(/^sha256=([0-9a-fA-F]{64})$/);
  if (!m) return { ok: false, reason: "X-Webhook-Signature is not sha256=<64 hex digits>" };
  const signature = fromHex(m[1]!);
  return verifyAny(secrets, [signature], hmacSignedContent(timestamp!, body));
}

/** Standard Webhooks: `header` holds one or more space-separated `v1,<base64>` signatures. */
export async function verifyStandardWebhook(
  secrets: readonly string[],
  id: string | null | undefined,
  timestamp: string | null | undefined,
  header: string | null | undefined,
  body: string,
  opts: { nowMs: number; toleranceSeconds: number },
): Promise<VerifyResult> {
  if (!id) return { ok: false, reason: "webhook-id missing" };
  const ts = checkTimestamp(timestamp, opts.nowMs, opts.toleranceSeconds);
  if (!ts.ok) return ts;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of (header ?? "").split(" ")) {
    if (!part.startsWith("v1,")) continue; // other versions (v1a…) are not ours
    const bytes = base64ToBytes(part.slice("v1,".length));
    if (bytes) signatures.push(bytes);
  }
  if (signatures.length === 0) return { ok: false, reason: "webhook-signature has no v1,<base64> signature" };
  return verifyAny(secrets, signatures, standardSignedContent(id, timestamp!, body));
}

async function verifyAny(
  secrets: readonly string[],
  signatures: Uint8Array<ArrayBuffer>[],
  content: string,
): Promise<VerifyResult> {
  const data = enc.encode(content);
  let match = -1;
  for (let i = 0; i < secrets.length; i++) {
    const key = await hmacKey(secrets[i]!);
    for (const sig of signatures) {
      // subtle.verify compares in constant time; keep going after a match (no early exit).
      if ((await crypto.subtle.verify("HMAC", key, sig, data)) && match < 0) match = i;
    }
  }
  return match >= 0 ? { ok: true, secretIndex: match } : { ok: false, reason: "signature does not match" };
}

// ---- encodings -------------------------------------------------------------------------------

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> | null {
  try {
    const bin = atob(b64);
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}
