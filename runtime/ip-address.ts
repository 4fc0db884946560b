/**
 * IP addresses the orchestrator must never call out to: loopback, private and link-local ranges
 * (cloud metadata endpoints among them), carrier-grade NAT, multicast, reserved and documentation
 * ranges, in IPv4 and IPv6, including IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4).
 * Pure: parsing and classification only, unit-tested in Node.
 */

/** Why an address is not public: a short label naming the range, or null for a public address. */
export type Blocked = string | null;

type V4Range = { base: number; bits: number; label: string };

const v4 = (dotted: string, bits: number, label: string): V4Range => ({
  base: ipv4Number(dotted.split(".").map(Number)),
  bits,
  label: `${label} (${dotted}/${bits})`,
});

/** IANA's special-purpose IPv4 registry, the parts that are not the public internet. */
const V4_BLOCKED: V4Range[] = [
  v4("0.0.0.0", 8, "this network"),
  v4("10.0.0.0", 8, "private network"),
  v4("100.64.0.0", 10, "carrier-grade NAT"),
  v4("127.0.0.0", 8, "loopback"),
  v4("169.254.0.0", 16, "link-local, cloud metadata"),
  v4("172.16.0.0", 12, "private network"),
  v4("192.0.0.0", 24, "IETF protocol assignments"),
  v4("192.0.2.0", 24, "documentation"),
  v4("192.88.99.0", 24, "6to4 relay"),
  v4("192.168.0.0", 16, "private network"),
  v4("198.18.0.0", 15, "benchmarking"),
  v4("198.51.100.0", 24, "documentation"),
  v4("203.0.113.0", 24, "documentation"),
  v4("224.0.0.0", 4, "multicast"),
  v4("240.0.0.0", 4, "reserved, broadcast"),
];

function ipv4Number(octets: number[]): number {
  return ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
}

/** The IPv4 address as 4 octets, or why it is not public. */
export function classifyIpv4(octets: readonly number[]): Blocked {
  const n = ipv4Number([...octets]);
  for (const r of V4_BLOCKED) {
    const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
    if ((n & mask) >>> 0 === r.base) return r.label;
  }
  return null;
}

/**
 * An IPv4 address written any way a URL parser or a resolver takes it: 1 to 4 dot-separated parts,
 * each decimal, octal (leading 0) or hex (0x), the last part filling the remaining bytes
 * (`127.1`, `0x7f000001`, `017700000001`, `2130706433`), with or without a trailing dot.
 * Null when it is not an IPv4 address.
 */
export function parseIpv4(host: string): number[] | null {
  const trimmed = host.replace(/\.+$/, "");
  if (trimmed === "") return null;
  const parts = trimmed.split(".");
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const v = parseIpv4Part(part);
    if (v === null) return null;
    values.push(v);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return null;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return null;
  const tail: number[] = [];
  for (let i = lastBytes - 1; i >= 0; i--) tail.push(Math.floor(last / 2 ** (8 * i)) % 256);
  return [...values, ...tail];
}

function parseIpv4Part(part: string): number | null {
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0;
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
  }
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!pattern.test(digits)) return null;
  const value = Number.parseInt(digits, radix);
  return Number.isSafeInteger(value) && value <= 0xffffffff ? value : null;
}

/**
 * An IPv6 address (without brackets) as 8 16-bit groups, or null. Takes `::` compression and a
 * dotted IPv4 tail (`::ffff:127.0.0.1`); a zone (`%eth0`) is not an address a URL may name.
 */
export function parseIpv6(text: string): number[] | null {
  if (!/^[0-9a-f:.]+$/i.test(text)) return null;
  let hex = text;
  const lastColon = hex.lastIndexOf(":");
  const last = hex.slice(lastColon + 1);
  if (last.includes(".")) {
    // A dotted IPv4 tail is two groups written another way.
    const octets = last.split(".");
    if (lastColon < 0 || octets.length !== 4 || octets.some((o) => !/^\d{1,3}$/.test(o) || Number(o) > 255))
      return null;
    const o = octets.map(Number);
    hex = `${hex.slice(0, lastColon + 1)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = hex.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":"));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const zeros = halves.length === 2 ? Array.from({ length: 8 - given }, () => "0") : [];
  return [...head, ...zeros, ...rest].map((g) => Number.parseInt(g, 16));
}

const embeddedV4 = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/** The IPv6 address as 8 groups, or why it is not public. */
export function classifyIpv6(g: readonly number[]): Blocked {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified (::)";
  if (zeroUpTo(7) && g[7] === 1) return "loopback (::1)";
  // Forms that carry an IPv4 address reach that address: judge them by it.
  if (zeroUpTo(5) && g[5] === 0xffff) return via("IPv4-mapped", embeddedV4(g[6]!, g[7]!));
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return via("IPv4-translated", embeddedV4(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return via("NAT64", embeddedV4(g[6]!, g[7]!));
  if (g[0] === 0x2002) return via("6to4", embeddedV4(g[1]!, g[2]!));
  if (zeroUpTo(6)) return "IPv4-compatible (::/96, deprecated)";
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "local-use NAT64 (64:ff9b:1::/48)";
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "discard-only (100::/64)";
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return "unique local, private network (fc00::/7)";
  if ((first & 0xffc0) === 0xfe80) return "link-local (fe80::/10)";
  if ((first & 0xffc0) === 0xfec0) return "site-local (fec0::/10, deprecated)";
  if ((first & 0xff00) === 0xff00) return "multicast (ff00::/8)";
  if ((first & 0xe000) !== 0x2000) return "not global unicast (outside 2000::/3)";
  if (first === 0x2001 && g[1]! < 0x200) return "IETF protocol assignments, Teredo (2001::/23)";
  if (first === 0x2001 && g[1] === 0xdb8) return "documentation (2001:db8::/32)";
  if (first === 0x3fff && g[1]! < 0x1000) return "documentation (3fff::/20)";
  return null;
}

function via(form: string, octets: number[]): Blocked {
  const inner = classifyIpv4(octets);
  return inner === null ? null : `${form} ${octets.join(".")}: ${inner}`;
}
