// @ts-check
// HTTP GET with a byte cap, a timeout, and redirects followed by hand so every hop is checked
// against the allowlist (fetch's own redirect handling would skip that check).
import { failedError } from "./exit.mjs";
import { envInt } from "./text-cap.mjs";

const MAX_REDIRECTS = 5;

/**
 * @typedef {{ url: string, status: number, statusText: string, contentType: string, body: Buffer, truncated: boolean }} FetchedPage
 */

/**
 * @param {URL} url
 * @param {{ maxBytes: number, headers?: Record<string, string>, checkUrl?: (raw: string) => URL }} options
 *   checkUrl is applied to every redirect target
 * @returns {Promise<FetchedPage>}
 */
export async function fetchCapped(url, options) {
  const signal = AbortSignal.timeout(envInt("EDGELOOP_TIMEOUT_MS", 30_000));
  let current = url;
  for (let hop = 0; ; hop++) {
    let response;
    try {
      response = await fetch(current, {
        headers: { "User-Agent": "edgeloop-skill/1.0", ...options.headers },
        redirect: "manual",
        signal,
      });
    } catch (err) {
      const cause = /** @type {{ cause?: { message?: string } }} */ (err)?.cause?.message;
      throw failedError(
        `request to ${current.href} failed: ${cause ?? (err instanceof Error ? err.message : String(err))}`,
      );
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw failedError(`too many redirects (more than ${MAX_REDIRECTS})`);
      const next = new URL(location, current).href;
      current = options.checkUrl ? options.checkUrl(next) : new URL(next);
      continue;
    }
    const { body, truncated } = await readCapped(response, options.maxBytes);
    return {
      url: current.href,
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get("content-type") ?? "",
      body,
      truncated,
    };
  }
}

/**
 * Stop reading at the cap instead of downloading everything and cutting afterwards.
 * @param {Response} response @param {number} maxBytes
 */
async function readCapped(response, maxBytes) {
  if (!response.body) return { body: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(Buffer.from(value.subarray(0, room)));
      size += room;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(Buffer.from(value));
    size += value.byteLength;
  }
  return { body: Buffer.concat(chunks, size), truncated };
}
