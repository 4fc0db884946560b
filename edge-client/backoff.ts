/**
 * Reconnect delays: capped exponential backoff with full jitter (a random delay between 0 and
 * min(max, min·2^attempt)), so a fleet of Pis that lost the hub together do not return together.
 */
export function backoffDelay(
  attempt: number,
  minMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(random() * ceiling);
}

/** Close codes the hub uses for a bad token (4001) and a device it will not serve (4003). */
export const AUTH_CLOSE_CODES: ReadonlySet<number> = new Set([4001, 4003]);

/** A refused token will not fix itself in half a second: wait long, and do not hammer the hub. */
export function authRetryDelay(maxMs: number): number {
  return Math.max(2 * maxMs, 1_000);
}
