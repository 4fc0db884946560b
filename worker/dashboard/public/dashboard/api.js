// @ts-check
/** The admin API, read and written with the session cookie. */

/**
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [opts]
 * @returns {Promise<any>} the answer's JSON; a refusal throws its problem's detail
 */
export async function api(path, opts = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    // The API refuses cookie-authenticated writes without this header (CSRF defence).
    headers["x-edgeloop-csrf"] = "1";
  }
  const res = await fetch(path, {
    method: opts.method || "GET",
    headers,
    credentials: "same-origin",
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (res.status === 401) {
    location.reload();
    throw new Error("session expired");
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((body && (body.detail || body.title)) || `HTTP ${res.status}`);
  return body;
}

/**
 * Run `fn` now and then every `intervalMs` while the page is visible.
 * @param {() => unknown} fn
 * @param {number} intervalMs
 */
export function every(fn, intervalMs) {
  fn();
  setInterval(() => {
    if (!document.hidden) fn();
  }, intervalMs);
}
