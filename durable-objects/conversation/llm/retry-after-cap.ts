/**
 * The openai client sleeps for whatever Retry-After a server sends, uncapped (v6), before its
 * next attempt. Inside a Durable Object a long sleep holds the request open for nothing, so a
 * retryable response asking for more than `maxMs` is marked `x-should-retry: false`: the client
 * returns it at once and the caller gets `retryAfterMs` to schedule the retry itself.
 */

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** Retry-After / retry-after-ms in milliseconds, or undefined when absent or unreadable. */
export function retryAfterMillis(headers: Headers | undefined | null, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function capRetryAfter(fetchImpl: typeof fetch, maxMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!RETRYABLE(response.status)) return response;
    const wait = retryAfterMillis(response.headers);
    if (wait === undefined || wait <= maxMs) return response;
    // Response headers are immutable on fetch responses: copy them onto a new Response.
    const headers = new Headers(response.headers);
    headers.set("x-should-retry", "false");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
