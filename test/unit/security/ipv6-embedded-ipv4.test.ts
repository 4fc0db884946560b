/**
 * The address guard judges an IPv6 address by the IPv4 address it carries only for the forms that
 * really carry one (mapped, translated, NAT64 64:ff9b::/96, 6to4 2002::/16). Any other address that
 * merely has a public IPv4 address written at the same place is judged by its own range.
 */
import { describe, expect, it } from "vitest";
import { classifyIpv6, parseIpv6 } from "../../../runtime/ip-address.js";
import { blockedHost, checkOutboundUrl } from "../../../runtime/outbound-url.js";

const classify = (text: string) => classifyIpv6(parseIpv6(text)!);

describe("IPv6 addresses that look like a carrier of a public IPv4 address", () => {
  it.each([
    ["fc00:ff9b::8.8.8.8", "unique local"],
    ["fc00::ffff:8.8.8.8", "unique local"],
    ["fc00:808:808::1", "unique local"],
    ["fe80::ffff:0:8.8.8.8", "link-local"],
    ["64:ff9b:0:0:1::8.8.8.8", "not global unicast"],
    ["64:ff9b:1::8.8.8.8", "local-use NAT64"],
    ["1::ffff:8.8.8.8", "not global unicast"],
    ["::1:ffff:8.8.8.8", "not global unicast"],
    ["::ffff:1:8.8.8.8", "not global unicast"],
    ["::8.8.8.8", "IPv4-compatible"],
    ["::2", "IPv4-compatible"],
    ["1::1", "not global unicast"],
    ["100:0:0:1::1", "not global unicast"],
    ["100::1:0:0:1", "discard-only"],
  ])("refuses %s (%s)", (address, range) => {
    expect(classify(address)).toContain(range);
    expect(checkOutboundUrl(`https://[${address}]/`, { allowPrivate: false })).toMatchObject({ ok: false });
  });

  it.each([
    ["::ffff:8.8.8.8", null],
    ["::ffff:0:8.8.8.8", null],
    ["64:ff9b::8.8.8.8", null],
    ["2002:808:808::1", null],
    ["2606:4700::1111", null],
  ])("lets %s out (a public address)", (address, expected) => {
    expect(classify(address)).toBe(expected);
  });

  it("names the form and the embedded address when it refuses one", () => {
    expect(classify("::ffff:10.1.2.3")).toBe("IPv4-mapped 10.1.2.3: private network (10.0.0.0/8)");
    expect(classify("::ffff:0:10.1.2.3")).toBe("IPv4-translated 10.1.2.3: private network (10.0.0.0/8)");
    expect(classify("64:ff9b::10.1.2.3")).toBe("NAT64 10.1.2.3: private network (10.0.0.0/8)");
    expect(classify("2002:a01:203::")).toBe("6to4 10.1.2.3: private network (10.0.0.0/8)");
    expect(blockedHost("[fc00:ff9b::8.8.8.8]")).toBe("unique local, private network (fc00::/7)");
  });
});
