import { classifyIpv4, classifyIpv6, parseIpv4, parseIpv6 } from "./ip-address.js";

/**
 * The one rule for URLs the orchestrator calls out to (`reply_url`, webhook tools, remote MCP
 * servers, and every redirect they answer with): an absolute https URL whose host is not a
 * loopback, private, link-local (cloud metadata), CGNAT, multicast or otherwise non-public address,
 * written in any form (`2130706433`, `0x7f.1`, `[::ffff:7f00:1]`, a trailing dot), nor a name that
 * only resolves locally (`localhost`, `*.localhost`, `*.internal`, `metadata.google.internal`, a
 * name without a dot) or that spells a private address (`10.0.0.1.nip.io`). `allowPrivate` (the
 * local-testing flag) lifts all of it, plain http included.
 *
 * Pure, so every caller and its tests apply the same check. What it cannot see: where a public
 * name resolves to. The Workers runtime offers no DNS lookup of its own (docs/security.md).
 */
export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; kind: "invalid" | "refused"; reason: string };

export type OutboundUrlPolicy = {
  /** http and private addresses allowed: local testing only (ALLOW_PRIVATE_OUTBOUND) */
  allowPrivate: boolean;
};

/** Top-level names for local networks (RFC 6761, 6762, 8375, ICANN's `.internal`) and common private ones. */
const LOCAL_SUFFIXES = [
  "localhost",
  "local",
  "internal",
  "localdomain",
  "home.arpa",
  "lan",
  "intranet",
  "corp",
  "home",
  "private",
];

/** Public DNS names that answer with whatever address is written in them, or always with 127.0.0.1. */
const ADDRESS_ECHO_DOMAINS = [
  "nip.io",
  "sslip.io",
  "xip.io",
  "localtest.me",
  "lvh.me",
  "vcap.me",
  "lacolhost.com",
  "traefik.me",
  "localhost.direct",
  "nip.direct",
  "backname.io",
];

/** Cloud metadata services by name (their addresses are refused as link-local or private). */
const METADATA_NAMES = ["metadata.google.internal", "metadata.goog", "metadata.azure.com", "instance-data"];

export function checkOutboundUrl(raw: string, policy: OutboundUrlPolicy): OutboundUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, kind: "invalid", reason: "invalid URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return refused(`only https URLs are allowed (got ${url.protocol})`);
  if (policy.allowPrivate) return { ok: true, url };
  if (url.protocol !== "https:") return refused(`only https URLs are allowed (got ${url.protocol}//${url.host})`);
  const blocked = blockedHost(url.hostname);
  return blocked === null ? { ok: true, url } : refused(`${url.hostname} is not a public address: ${blocked}`);
}

const refused = (reason: string): OutboundUrlCheck => ({ ok: false, kind: "refused", reason });

/**
 * Why a URL's host (as `URL.hostname` gives it: IPv6 in brackets) must not be called, or null.
 * Exported for the unit tests and for redirects.
 */
export function blockedHost(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  if (host === "") return "empty host";
  if (host.startsWith("[")) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups ? classifyIpv6(groups) : "not a valid IPv6 address";
  }
  // URL parsers turn every IPv4 spelling into dotted decimal; this also catches one that did not.
  if (/^[0-9a-fx.]+$/.test(host) && /(^|\.)(0x[0-9a-f]*|\d+)$/.test(host)) {
    const octets = parseIpv4(host);
    return octets ? classifyIpv4(octets) : "a numeric host that is not a valid IPv4 address";
  }
  if (host.includes(":")) return "not a valid host";
  for (const suffix of LOCAL_SUFFIXES)
    if (host === suffix || host.endsWith(`.${suffix}`)) return `.${suffix} names resolve only on a local network`;
  if (!host.includes(".")) return "a name without a dot resolves only on a local network";
  if (METADATA_NAMES.some((n) => host === n || host.endsWith(`.${n}`))) return "a cloud metadata service";
  for (const domain of ADDRESS_ECHO_DOMAINS)
    if (host === domain || host.endsWith(`.${domain}`)) return `${domain} names resolve to the address written in them`;
  return spelledAddress(host);
}

/** A name with a non-public IPv4 address written in it (`10.0.0.1.example.com`, `10-0-0-1.example.com`). */
function spelledAddress(host: string): string | null {
  for (const m of host.matchAll(/(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?=$|[.-])/g)) {
    const octets = m.slice(1, 5).map(Number);
    if (octets.some((o) => o > 255)) continue;
    const inner = classifyIpv4(octets);
    if (inner !== null) return `the name spells ${octets.join(".")}: ${inner}`;
  }
  return null;
}
