/**
 * HMAC-SHA256 signatures written as hex, the scheme most platforms use for their webhooks (Slack's
 * `v0=`, Meta's and GitHub's `sha256=`, Grafana's bare hex). Each caller builds the signed content
 * its platform's way; this only signs and verifies. Verification goes through `crypto.subtle.verify`,
 * which compares in constant time.
 */

const enc = new TextEncoder();

async function key(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

/** The lowercase hex HMAC-SHA256 of `content` under `secret` (the secret's UTF-8 bytes are the key). */
export async function hmacSha256Hex(secret: string, content: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await key(secret), enc.encode(content)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether `hex` (64 hex digits, either case) is the HMAC of `content` under any of `secrets`
 * (several during a rotation). Every secret is tried, so the time taken does not say which matched.
 */
export async function verifyHmacSha256Hex(secrets: readonly string[], hex: string, content: string): Promise<boolean> {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const signature = Uint8Array.from({ length: 32 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
  const data = enc.encode(content);
  let match = false;
  for (const secret of secrets) {
    if (await crypto.subtle.verify("HMAC", await key(secret), signature, data)) match = true;
  }
  return match;
}

/** Two secrets compared in constant time (a verify token, a shared-secret header). */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  // Hashing both first makes the comparison length-independent.
  const [a, b] = await Promise.all([given, expected].map((s) => crypto.subtle.digest("SHA-256", enc.encode(s))));
  const x = new Uint8Array(a!);
  const y = new Uint8Array(b!);
  // Every byte is looked at whatever the earlier ones were (no early exit).
  return x.reduce((diff, byte, i) => diff | (byte ^ y[i]!), 0) === 0;
}
