/**
 * The address guard's edges: every local suffix and echo domain by name, exact reasons, and the
 * spellings of IPv4 and IPv6 that parse, or must not, at the limits of each rule.
 */
import { describe, expect, it } from "vitest";
import { classifyIpv4, classifyIpv6, parseIpv4, parseIpv6 } from "../../../runtime/ip-address.js";
import { blockedHost, checkOutboundUrl } from "../../../runtime/outbound-url.js";

describe("blockedHost: names", () => {
  it.each(["localhost", "local", "internal", "localdomain", "home.arpa", "lan", "intranet", "corp", "home", "private"])(
    "refuses names under .%s, and the name itself",
    (suffix) => {
      expect(blockedHost(`db.${suffix}`)).toBe(`.${suffix} names resolve only on a local network`);
      expect(blockedHost(suffix)).toBe(`.${suffix} names resolve only on a local network`);
    },
  );

  it.each([
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
  ])("refuses %s and its subdomains", (domain) => {
    const reason = `${domain} names resolve to the address written in them`;
    expect(blockedHost(domain)).toBe(reason);
    expect(blockedHost(`app.${domain}`)).toBe(reason);
  });

  it.each(["metadata.google.internal", "metadata.goog", "metadata.azure.com", "instance-data"])(
    "refuses the metadata service %s",
    (name) => {
      const reason = blockedHost(name);
      expect(reason).not.toBeNull();
      // A name under it is refused as the service too, the dotless `instance-data` included.
      if (!name.endsWith(".internal")) expect(blockedHost(`x.${name}`)).toBe("a cloud metadata service");
      if (name.includes(".") && !name.endsWith(".internal")) expect(reason).toBe("a cloud metadata service");
    },
  );

  it("judges a name by what it is, not by a look-alike", () => {
    expect(blockedHost("example.goog.metadata.io")).toBeNull();
    expect(blockedHost("cafe.bad")).toBeNull();
    expect(blockedHost("0xdead.beef")).toBeNull();
    expect(blockedHost("localhost..")).toBe(".localhost names resolve only on a local network");
    expect(blockedHost("a:b")).toBe("not a valid host");
  });

  it("reads an address spelled in a name, wherever it ends", () => {
    expect(blockedHost("cdn.example.10-0-0-1")).toBe("the name spells 10.0.0.1: private network (10.0.0.0/8)");
    expect(blockedHost("www.10.0.0.1")).toContain("spells 10.0.0.1");
    expect(blockedHost("b.255.255.255.255.example.com")).toContain("spells 255.255.255.255");
    // 266 is no octet: the name spells no address (266 << 24 would wrap to 10.0.0.1).
    expect(blockedHost("266.0.0.1.example.com")).toBeNull();
  });

  it("gives exact reasons for addresses", () => {
    expect(blockedHost("0x7f000001")).toBe("loopback (127.0.0.0/8)");
    expect(blockedHost("0.1.2.3")).toBe("this network (0.0.0.0/8)");
    expect(checkOutboundUrl("not a url", { allowPrivate: false })).toEqual({
      ok: false,
      kind: "invalid",
      reason: "invalid URL",
    });
  });
});

describe("parseIpv4: the limits of each spelling", () => {
  it("takes the largest address and several trailing dots", () => {
    expect(parseIpv4("4294967295")).toEqual([255, 255, 255, 255]);
    expect(parseIpv4("10.0.0.1..")).toEqual([10, 0, 0, 1]);
  });

  it.each(["1.2.3.4.0", "1a.0.0.1", "1a1", "12a", "0x1g1", "0x1g", "0178"])("refuses %s", (text) => {
    expect(parseIpv4(text)).toBeNull();
  });
});

describe("parseIpv6: the limits of each spelling", () => {
  it("takes seven groups with :: and a dotted tail up to 255", () => {
    expect(parseIpv6("1:2:3:4:5:6:7::")).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIpv6("::ffff:10.20.30.40")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a14, 0x1e28]);
    expect(parseIpv6("::ffff:1.2.3.255")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x3ff]);
  });

  it("takes all eight groups written out, with or without a dotted tail", () => {
    expect(parseIpv6("2001:db8:0:0:0:0:0:1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("0:0:0:0:0:ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
  });

  it.each(["1:2:3:4:5:6:7:8::", "::1.2.3", "::1.2.3.256", "::1.2.3.a", "::1.2.3.a1", "::1.2.3.1a", "::1.2..4"])(
    "refuses %s",
    (text) => {
      expect(parseIpv6(text)).toBeNull();
    },
  );
});

describe("classifyIpv6: ranges next to the special ones", () => {
  const classify = (text: string) => classifyIpv6(parseIpv6(text)!);

  it.each(["64:1::8.8.8.8", "64:1:1::1", "64:ff9b:2::1", "100:1::1", "100:0:1::1"])("%s is not global unicast", (a) => {
    expect(classify(a)).toBe("not global unicast (outside 2000::/3)");
  });

  it.each(["2001:4860:1::8888", "2606:ff9b:1::1", "2600:db8::1"])("%s is public", (a) => {
    expect(classify(a)).toBeNull();
  });

  it("public IPv4 addresses stay public", () => {
    expect(classifyIpv4([8, 8, 8, 8])).toBeNull();
  });
});
