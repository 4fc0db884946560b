import type { SendResult } from "../../platform.js";

/** A platform's HTTP answer, read once: the status, the headers, and the body as JSON (or text). */
export type PlatformAnswer = { status: number; headers: Headers; body: unknown };

/**
 * One outbound call to a platform's API, shaped for the outbox: a network failure is retryable; what
 * the answer means is the platform's to say (`interpret`), since each reports success and rate
 * limits its own way.
 */
export async function platformCall(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  interpret: (answer: PlatformAnswer) => SendResult,
): Promise<SendResult> {
  let res: Response;
  try {
    res = await fetchImpl(url, init);
  } catch (e) {
    return { ok: false, retryable: true, error: `network error: ${String(e)}` };
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text for the error message */
  }
  return interpret({ status: res.status, headers: res.headers, body });
}

/** An HTTP failure: 429 and 5xx are worth retrying, after `retryAfterMs` when the platform said. */
export function httpFailure(answer: PlatformAnswer, detail: string, retryAfterMs?: number): SendResult {
  const retryable = answer.status === 429 || answer.status >= 500;
  return {
    ok: false,
    retryable,
    ...(retryable && retryAfterMs !== undefined ? { retryAfterMs } : {}),
    error: `HTTP ${answer.status}: ${detail}`.slice(0, 500),
  };
}

/** A `Retry-After` header in seconds, as milliseconds (absent or unreadable: undefined). */
export function retryAfterHeaderMs(headers: Headers): number | undefined {
  const raw = headers.get("retry-after");
  if (raw === null || !/^\d+(\.\d+)?$/.test(raw.trim())) return undefined;
  return Math.ceil(Number(raw) * 1000);
}

/** Bytes fetched from a platform's file store, refused when the answer is not a success. */
export async function fetchBytes(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
): Promise<{ bytes: Uint8Array; mediaType: string }> {
  const res = await fetchImpl(url, { headers });
  if (!res.ok) throw new Error(`fetching an image failed: HTTP ${res.status}`);
  return {
    bytes: new Uint8Array(await res.arrayBuffer()),
    mediaType: res.headers.get("content-type")?.split(";")[0]?.trim() || "application/octet-stream",
  };
}

/**
 * Whether a file URL taken from a (verified) platform payload may be fetched with the bot's
 * credentials: only from the platform's own hosts or the configured API base URL's origin, so a
 * token never leaves for another host.
 */
export function isPlatformUrl(url: string, apiBaseUrl: string, hosts: readonly string[]): boolean {
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  if (u.origin === new URL(apiBaseUrl).origin) return true;
  return u.protocol === "https:" && hosts.includes(u.hostname);
}
