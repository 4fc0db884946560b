import { checkOutboundUrl, type OutboundUrlPolicy } from "./outbound-url.js";

/**
 * `fetch` for requests the orchestrator makes on a client's or a tool's behalf (reply_url
 * deliveries, webhook tools, remote MCP servers): the URL must pass the outbound rule
 * (outbound-url.ts) before anything is sent, and redirects are followed here, one hop at a time
 * (`redirect: "manual"` underneath), each `Location` checked by the same rule, at most
 * MAX_REDIRECTS hops. A caller that asks for `redirect: "manual"` gets the 3xx back unfollowed
 * (the MCP client follows same-origin redirects itself, through this same function).
 *
 * A refusal is thrown as OutboundRefused, before any byte leaves. `fetchImpl` is injectable so the
 * rules are unit-tested without a network.
 */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Dropped when a redirect leaves the origin, as browsers do: credentials are for the host they were given to. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

export class OutboundRefused extends Error {
  override readonly name = "OutboundRefused";
}

export function guardedFetch(
  policy: OutboundUrlPolicy,
  fetchImpl: typeof fetch = fetch,
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    let url = checked(String(input), policy, null);
    if (init.redirect === "manual" || init.redirect === "error") return fetchImpl(url, init);
    let current: RequestInit = { ...init, redirect: "manual" };
    for (let hop = 0; ; hop++) {
      const res = await fetchImpl(url, current);
      const location = res.headers.get("location");
      if (!REDIRECTS.has(res.status) || location === null) return res;
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`more than ${MAX_REDIRECTS} redirects from ${url.origin}`);
      const next = checked(new URL(location, url).href, policy, url);
      current = nextInit(current, res.status, url, next);
      url = next;
    }
  };
}

function checked(raw: string, policy: OutboundUrlPolicy, from: URL | null): URL {
  const check = checkOutboundUrl(raw, policy);
  if (check.ok) return check.url;
  const where = from ? `redirect from ${from.origin} refused: ` : "";
  throw new OutboundRefused(`${where}${check.reason}`);
}

/**
 * The request a redirect asks for, as fetch itself would make it: 303 (and 301/302 after a POST)
 * becomes a GET without a body; 307/308 repeat the method and body. Leaving the origin drops the
 * credentials.
 */
function nextInit(init: RequestInit, status: number, from: URL, to: URL): RequestInit {
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  let next: RequestInit = { ...init };
  if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
    next = { ...next, method: method === "HEAD" ? "HEAD" : "GET", body: null };
    for (const h of ["content-type", "content-length", "content-encoding"]) headers.delete(h);
  }
  if (from.origin !== to.origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
  return { ...next, headers };
}
