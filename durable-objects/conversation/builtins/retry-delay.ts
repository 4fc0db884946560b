/** Backoff for webhook retries: exponential, capped, with jitter so many callers do not retry in step. */

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;
/** A server asking for a longer pause than this gets this: the tool call has a deadline. */
export const RETRY_AFTER_CAP_MS = 30_000;

/** Delay before retry number `attempt` (0 = the first retry): "equal jitter", half fixed, half random. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** `Retry-After` as milliseconds (delta-seconds or an HTTP date), capped; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null || header.trim() === "") return null;
  const text = header.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - nowMs;
  }
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, Math.round(ms)));
}

/** Worst-case total backoff across `retries` retries, for sizing the call's deadline. */
export function maxTotalBackoffMs(retries: number): number {
  let total = 0;
  for (let i = 0; i < retries; i++) total += Math.max(BACKOFF_CAP_MS, RETRY_AFTER_CAP_MS);
  return total;
}

/**
 * A retried call's deadline: every attempt using its whole time limit, plus the longest backoffs
 * between them, so the loop never times out a call its own retries are still working on.
 */
export function retriedCallBudgetMs(attempt: { max_retries: number; timeout_secs: number }): number {
  return (attempt.max_retries + 1) * attempt.timeout_secs * 1000 + maxTotalBackoffMs(attempt.max_retries);
}
