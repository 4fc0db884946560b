/**
 * Comparing secrets in constant time, on its own so the dashboard session (dashboard-session.ts)
 * can be tested in Node without the Workers bindings credentials.ts reaches.
 */

/** Constant-time equality: compare digests so neither length nor content leaks through timing. */
export async function safeEqual(a: string, b: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [da, db] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(a)),
    crypto.subtle.digest("SHA-256", enc.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(da, db);
}

export async function matchesAny(candidate: string, accepted: readonly string[]): Promise<boolean> {
  let ok = false;
  // Check every token so the time taken does not say which one matched.
  for (const token of accepted) if (await safeEqual(candidate, token)) ok = true;
  return ok;
}
