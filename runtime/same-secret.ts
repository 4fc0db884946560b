/**
 * Constant-time equality of two secrets (a webhook's shared token against the configured one):
 * the digests are compared byte by byte without stopping early, so neither the length nor the
 * first differing byte shows in the time taken. Plain Web Crypto, so Node runs it in unit tests.
 */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [da, db] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(a)),
    crypto.subtle.digest("SHA-256", enc.encode(b)),
  ]);
  const x = new Uint8Array(da);
  const y = new Uint8Array(db);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
