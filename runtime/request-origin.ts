import { classifyIpv4, classifyIpv6, parseIpv4, parseIpv6 } from "./ip-address.js";

/**
 * DNS rebinding protection, as the MCP transport specification requires of servers (validate
 * `Origin`; bind local servers to loopback and check `Host`). A page on `evil.example.com` whose
 * name is rebound to 127.0.0.1 talks to a local server as its own origin, so a same-origin rule
 * alone lets it in: what gives it away is the `Host` it sends. Pure: the caller passes the
 * request's parts, this says whether to refuse it and why.
 */
export type OriginCheck = {
  /** the request URL (under workerd it carries the `Host` the client sent) */
  url: string;
  /** the `Host` header */
  host: string | null;
  /** the `Origin` header */
  origin: string | null;
  /** the TCP peer as the runtime reports it (`CF-Connecting-IP`) */
  clientIp: string | null;
  /** origins a browser client may call from (`MCP_ALLOWED_ORIGINS`), e.g. `https://app.example` */
  allowedOrigins: readonly string[];
};

/** Null when the request may be served; otherwise the reason it is refused. */
export function originRefusal(req: OriginCheck): string | null {
  const self = new URL(req.url);
  const local = isLoopbackHost(self.hostname) || (req.clientIp !== null && isLoopbackAddress(req.clientIp));
  const hostHeader = req.host ?? self.host;
  const allowedHost =
    isLoopbackHost(hostnameOf(hostHeader)) || req.allowedOrigins.some((o) => hostOfOrigin(o) === hostHeader);
  if (local && !allowedHost) return `host ${hostHeader} is not a loopback address of this server`;
  if (req.origin === null) return null; // MCP clients outside a browser send none
  if (req.origin === self.origin || req.allowedOrigins.includes(req.origin)) return null;
  return `origin ${req.origin} is not allowed (MCP_ALLOWED_ORIGINS)`;
}

/** `localhost`, or a literal address in 127.0.0.0/8 or ::1 (bracketed or not). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  return isLoopbackAddress(h.replace(/^\[(.*)\]$/, "$1"));
}

function isLoopbackAddress(address: string): boolean {
  const v4 = parseIpv4(address);
  if (v4) return classifyIpv4(v4)?.startsWith("loopback") ?? false;
  const v6 = parseIpv6(address);
  return v6 !== null && (classifyIpv6(v6)?.includes("loopback") ?? false);
}

/**
 * The name part of a `Host` header (`[::1]:8787` → `[::1]`, `a.example:80` → `a.example`): a bracketed
 * IPv6 address ends in `]`, so only a port can end in `:<digits>`.
 */
function hostnameOf(host: string): string {
  return host.replace(/:\d+$/, "");
}

function hostOfOrigin(origin: string): string | null {
  return URL.canParse(origin) ? new URL(origin).host : null;
}
