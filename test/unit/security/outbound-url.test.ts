/**
 * The outbound address rule (runtime/outbound-url.ts, runtime/ip-address.ts) as pure functions:
 * every range, every spelling of an address, names that only resolve locally. Nothing here sends
 * a request anywhere.
 */
import { describe, expect, it } from "vitest";
import { classifyIpv4, classifyIpv6, parseIpv4, parseIpv6 } from "../../../runtime/ip-address.js";
import { OutboundVarsSchema, outboundPolicy } from "../../../runtime/outbound-settings.js";
import { blockedHost, checkOutboundUrl } from "../../../runtime/outbound-url.js";

const STRICT = { allowPrivate: false };
const LOCAL_TESTING = { allowPrivate: true };

const refused = (url: string) => {
  const check = checkOutboundUrl(url, STRICT);
  return check.ok ? null : check.reason;
};

describe("checkOutboundUrl", () => {
  it("accepts public https URLs by name and by address", () => {
    for (const url of [
      "https://hooks.example.com/x",
      "https://api.github.com:8443/a?b=c",
      "https://8.8.8.8/",
      "https://1.1.1.1:443/dns-query",
      "https://[2606:4700:4700::1111]/",
      "https://[2001:4860:4860::8888]/",
      "https://172.15.255.255/",
      "https://172.32.0.1/",
      "https://100.63.255.255/",
      "https://100.128.0.0/",
      "https://ec2-54-12-34-56.compute-1.amazonaws.com/",
    ]) {
      expect(checkOutboundUrl(url, STRICT), url).toMatchObject({ ok: true });
    }
  });

  it("refuses plain http, other schemes and malformed URLs", () => {
    expect(refused("http://hooks.example.com/")).toContain("only https");
    expect(refused("ftp://hooks.example.com/")).toContain("only https");
    expect(refused("file:///etc/passwd")).toContain("only https");
    expect(refused("gopher://127.0.0.1:6379/_PING")).toContain("only https");
    expect(checkOutboundUrl("not a url", STRICT)).toMatchObject({ ok: false, kind: "invalid" });
    expect(checkOutboundUrl("https://[fe80::1%25eth0]/", STRICT)).toMatchObject({ ok: false, kind: "invalid" });
    expect(checkOutboundUrl("https://256.0.0.1/", STRICT)).toMatchObject({ ok: false, kind: "invalid" });
  });

  it.each([
    ["https://127.0.0.1/", "loopback"],
    ["https://127.255.255.254:8443/", "loopback"],
    ["https://0.0.0.0/", "this network"],
    ["https://0.1.2.3/", "this network"],
    ["https://10.0.0.1/", "private network"],
    ["https://10.255.255.255/", "private network"],
    ["https://172.16.0.1/", "private network"],
    ["https://172.31.255.255/", "private network"],
    ["https://192.168.1.1/", "private network"],
    ["https://100.64.0.1/", "carrier-grade NAT"],
    ["https://100.100.100.200/", "carrier-grade NAT"],
    ["https://169.254.169.254/latest/meta-data/", "link-local, cloud metadata"],
    ["https://169.254.170.2/v2/credentials", "link-local, cloud metadata"],
    ["https://192.0.0.192/", "IETF protocol assignments"],
    ["https://192.0.2.10/", "documentation"],
    ["https://198.51.100.7/", "documentation"],
    ["https://203.0.113.9/", "documentation"],
    ["https://198.18.0.1/", "benchmarking"],
    ["https://192.88.99.1/", "6to4 relay"],
    ["https://224.0.0.1/", "multicast"],
    ["https://239.255.255.250/", "multicast"],
    ["https://240.0.0.1/", "reserved"],
    ["https://255.255.255.255/", "reserved, broadcast"],
  ])("refuses %s (%s)", (url, range) => {
    expect(refused(url)).toContain(range);
  });

  it.each([
    ["decimal", "https://2130706433/", "loopback"],
    ["hex", "https://0x7f000001/", "loopback"],
    ["hex parts", "https://0x7f.0.0.1/", "loopback"],
    ["octal", "https://0177.0.0.1/", "loopback"],
    ["octal whole", "https://017700000001/", "loopback"],
    ["short form", "https://127.1/", "loopback"],
    ["short zero", "https://0/", "this network"],
    ["trailing dot", "https://127.0.0.1./", "loopback"],
    ["percent-encoded", "https://%31%32%37.0.0.1/", "loopback"],
    ["full-width digits", "https://１６９.２５４.１６９.２５４/", "cloud metadata"],
    ["metadata in decimal", "https://2852039166/", "cloud metadata"],
    ["userinfo in front", "https://hooks.example.com@127.0.0.1/", "loopback"],
    ["backslash trick", "https://127.0.0.1\\@hooks.example.com/", "loopback"],
  ])("refuses an IPv4 address in disguise: %s", (_what, url, range) => {
    expect(refused(url)).toContain(range);
  });

  it.each([
    ["https://[::1]/", "loopback"],
    ["https://[::]/", "unspecified"],
    ["https://[0:0:0:0:0:0:0:1]/", "loopback"],
    ["https://[::ffff:127.0.0.1]/", "IPv4-mapped 127.0.0.1: loopback"],
    ["https://[::ffff:7f00:1]/", "IPv4-mapped 127.0.0.1"],
    ["https://[0:0:0:0:0:ffff:169.254.169.254]/", "IPv4-mapped 169.254.169.254"],
    ["https://[::ffff:10.0.0.1]/", "IPv4-mapped 10.0.0.1"],
    ["https://[::ffff:0:192.168.0.1]/", "IPv4-translated 192.168.0.1"],
    ["https://[64:ff9b::127.0.0.1]/", "NAT64 127.0.0.1"],
    ["https://[64:ff9b::a9fe:a9fe]/", "NAT64 169.254.169.254"],
    ["https://[64:ff9b:1::1]/", "local-use NAT64"],
    ["https://[2002:7f00:1::]/", "6to4 127.0.0.1"],
    ["https://[2002:a9fe:a9fe::1]/", "6to4 169.254.169.254"],
    ["https://[::127.0.0.1]/", "IPv4-compatible"],
    ["https://[fd00:ec2::254]/", "unique local"],
    ["https://[fc00::1]/", "unique local"],
    ["https://[fdff:ffff::1]/", "unique local"],
    ["https://[fe80::1]/", "link-local"],
    ["https://[febf::1]/", "link-local"],
    ["https://[fec0::1]/", "site-local"],
    ["https://[ff02::1]/", "multicast"],
    ["https://[100::1]/", "discard-only"],
    ["https://[2001:db8::1]/", "documentation"],
    ["https://[3fff::1]/", "documentation"],
    ["https://[2001::1]/", "Teredo"],
    ["https://[5f00::1]/", "not global unicast"],
  ])("refuses the IPv6 address %s (%s)", (url, range) => {
    expect(refused(url)).toContain(range);
  });

  it("lets IPv6 forms of public IPv4 addresses through (they are public)", () => {
    expect(checkOutboundUrl("https://[::ffff:8.8.8.8]/", STRICT)).toMatchObject({ ok: true });
    expect(checkOutboundUrl("https://[64:ff9b::808:808]/", STRICT)).toMatchObject({ ok: true });
    expect(checkOutboundUrl("https://[2002:808:808::1]/", STRICT)).toMatchObject({ ok: true });
  });

  it.each([
    ["https://localhost/", ".localhost"],
    ["https://LOCALHOST./", ".localhost"],
    ["https://api.localhost/", ".localhost"],
    ["https://metadata.google.internal/computeMetadata/v1/", ".internal"],
    ["https://metadata.google.internal./", ".internal"],
    ["https://metadata.goog/", "cloud metadata"],
    ["https://metadata/", "without a dot"],
    ["https://nas/", "without a dot"],
    ["https://intranet/", ".intranet"],
    ["https://printer.local/", ".local"],
    ["https://nas.home.arpa/", ".home.arpa"],
    ["https://router.lan/", ".lan"],
    ["https://db.corp/", ".corp"],
    ["https://ip-10-0-0-1.ec2.internal/", ".internal"],
    ["https://127.0.0.1.nip.io/", "nip.io"],
    ["https://10-0-0-1.sslip.io/", "sslip.io"],
    ["https://anything.localtest.me/", "localtest.me"],
    ["https://lvh.me/", "lvh.me"],
    ["https://169.254.169.254.example.com/", "spells 169.254.169.254"],
    ["https://x-192-168-0-1.example.com/", "spells 192.168.0.1"],
  ])("refuses the name %s (%s)", (url, why) => {
    expect(refused(url)).toContain(why);
  });

  it("lets everything through under the local-testing flag, plain http included", () => {
    for (const url of ["http://127.0.0.1:8787/hook", "http://localhost/", "https://[::1]/", "http://10.0.0.1/"])
      expect(checkOutboundUrl(url, LOCAL_TESTING), url).toMatchObject({ ok: true });
    expect(checkOutboundUrl("ftp://127.0.0.1/", LOCAL_TESTING)).toMatchObject({ ok: false, kind: "refused" });
  });
});

describe("address parsing", () => {
  it("reads IPv4 in every form a URL parser or resolver takes", () => {
    expect(parseIpv4("127.0.0.1")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("127.1")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("127.0.1")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("2130706433")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("0x7f000001")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("0X7F.0.0.01")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("0177.0.0.1")).toEqual([127, 0, 0, 1]);
    expect(parseIpv4("10.0.0.1.")).toEqual([10, 0, 0, 1]);
    expect(parseIpv4("0x")).toEqual([0, 0, 0, 0]);
    for (const bad of ["256.1.1.1", "1.2.3.4.5", "1.2.3.256", "08.1.1.1", "0xg.1.1.1", "", "1..1", "4294967296"])
      expect(parseIpv4(bad), bad).toBeNull();
  });

  it("reads IPv6 with :: and a dotted IPv4 tail", () => {
    expect(parseIpv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6("fe80::1:2")).toEqual([0xfe80, 0, 0, 0, 0, 0, 1, 2]);
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const bad of ["1::2::3", "12345::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "::g", "fe80::1%eth0", "1.2.3.4"])
      expect(parseIpv6(bad), bad).toBeNull();
  });

  it("classifies the edges of ranges exactly", () => {
    expect(classifyIpv4([9, 255, 255, 255])).toBeNull();
    expect(classifyIpv4([11, 0, 0, 0])).toBeNull();
    expect(classifyIpv4([126, 255, 255, 255])).toBeNull();
    expect(classifyIpv4([128, 0, 0, 0])).toBeNull();
    expect(classifyIpv4([169, 253, 255, 255])).toBeNull();
    expect(classifyIpv4([169, 255, 0, 0])).toBeNull();
    expect(classifyIpv4([192, 167, 255, 255])).toBeNull();
    expect(classifyIpv4([192, 169, 0, 0])).toBeNull();
    expect(classifyIpv4([223, 255, 255, 255])).toBeNull();
    expect(classifyIpv6(parseIpv6("fbff::1")!)).toContain("not global unicast");
    expect(classifyIpv6(parseIpv6("2000::1")!)).toBeNull();
    expect(classifyIpv6(parseIpv6("2001:200::1")!)).toBeNull();
    expect(classifyIpv6(parseIpv6("3ffe::1")!)).toBeNull();
    expect(classifyIpv6(parseIpv6("3fff:1000::1")!)).toBeNull();
  });

  it("judges URL hostnames as the URL parser gives them", () => {
    expect(blockedHost("[::ffff:a9fe:a9fe]")).toContain("169.254.169.254");
    expect(blockedHost("example.com")).toBeNull();
    expect(blockedHost("example.com.")).toBeNull();
    expect(blockedHost("")).toBe("empty host");
    expect(blockedHost("[zz::1]")).toContain("not a valid IPv6");
    expect(blockedHost("1.2.3.999")).toContain("not a valid IPv4");
  });
});

describe("the local-testing flag", () => {
  it("is ALLOW_PRIVATE_OUTBOUND, and its older name ALLOW_HTTP_WEBHOOK_TOOLS still works", () => {
    expect(outboundPolicy({})).toEqual({ allowPrivate: false });
    expect(outboundPolicy({ ALLOW_PRIVATE_OUTBOUND: "false" })).toEqual({ allowPrivate: false });
    expect(outboundPolicy({ ALLOW_PRIVATE_OUTBOUND: "true" })).toEqual({ allowPrivate: true });
    expect(outboundPolicy({ ALLOW_HTTP_WEBHOOK_TOOLS: "true" })).toEqual({ allowPrivate: true });
    expect(OutboundVarsSchema.safeParse({ ALLOW_PRIVATE_OUTBOUND: "yes" }).success).toBe(false);
  });
});
