import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hmacSha256Hex, sameSecret, verifyHmacSha256Hex } from "../../../runtime/hmac-hex.js";

// The scheme Slack, Meta, GitHub and Grafana sign their webhooks with. The signature is computed here with
// Node's own crypto, not with the module under test, so a wrong key or byte order in it shows.
const SECRET = "s3cret";
const BODY = '{"event":"push"}';
const expected = createHmac("sha256", SECRET).update(BODY).digest("hex");

describe("HMAC-SHA256 hex signatures", () => {
  it("sign as every platform does: the lowercase hex HMAC of the content under the secret's bytes", async () => {
    expect(await hmacSha256Hex(SECRET, BODY)).toBe(expected);
    expect(await hmacSha256Hex("ключ", "ü")).toBe(createHmac("sha256", "ключ").update("ü").digest("hex"));
    // A MAC with leading zero bytes keeps them: each byte is two digits.
    expect(await hmacSha256Hex("k", "4")).toMatch(/^[0-9a-f]{64}$/);
    expect(await hmacSha256Hex("k", "4")).toBe(createHmac("sha256", "k").update("4").digest("hex"));
  });

  it("verify the right signature, in either case", async () => {
    expect(await verifyHmacSha256Hex([SECRET], expected, BODY)).toBe(true);
    expect(await verifyHmacSha256Hex([SECRET], expected.toUpperCase(), BODY)).toBe(true);
  });

  it("refuse a valid signature with anything before or after it", async () => {
    // Each is the right 64 digits plus something: a parser that read only the first or last 64 would accept it.
    for (const junk of ["0", "00", "a", "ab", " ", "\n", "=", "g"]) {
      expect(await verifyHmacSha256Hex([SECRET], `${expected}${junk}`, BODY), `trailing ${JSON.stringify(junk)}`).toBe(
        false,
      );
      expect(await verifyHmacSha256Hex([SECRET], `${junk}${expected}`, BODY), `leading ${JSON.stringify(junk)}`).toBe(
        false,
      );
    }
    expect(await verifyHmacSha256Hex([SECRET], `${expected}\n${expected}`, BODY)).toBe(false);
  });

  it("refuse a signature of the wrong length or with a non-hex digit", async () => {
    expect(await verifyHmacSha256Hex([SECRET], expected.slice(0, 63), BODY)).toBe(false);
    expect(await verifyHmacSha256Hex([SECRET], expected.slice(0, 62), BODY)).toBe(false);
    expect(await verifyHmacSha256Hex([SECRET], "", BODY)).toBe(false);
    // `parseInt("0g", 16)` is 0: a digit outside hex must be refused before parsing, not read as far as it goes.
    const zeroed = `${"0".repeat(64)}`;
    expect(await verifyHmacSha256Hex([SECRET], `${"0g"}${zeroed.slice(2)}`, BODY)).toBe(false);
    const withG = `${expected.slice(0, 62)}${expected[62]}g`;
    expect(await verifyHmacSha256Hex([SECRET], withG, BODY)).toBe(false);
  });

  it("refuse a signature that differs in its last byte only, or is for other content or another secret", async () => {
    const last = Number.parseInt(expected.slice(62), 16);
    const flipped = `${expected.slice(0, 62)}${(last ^ 1).toString(16).padStart(2, "0")}`;
    expect(await verifyHmacSha256Hex([SECRET], flipped, BODY)).toBe(false);
    const first = Number.parseInt(expected.slice(0, 2), 16);
    const flippedFirst = `${(first ^ 0x80).toString(16).padStart(2, "0")}${expected.slice(2)}`;
    expect(await verifyHmacSha256Hex([SECRET], flippedFirst, BODY)).toBe(false);
    expect(await verifyHmacSha256Hex([SECRET], expected, `${BODY} `)).toBe(false);
    expect(await verifyHmacSha256Hex(["other"], expected, BODY)).toBe(false);
    expect(await verifyHmacSha256Hex([], expected, BODY)).toBe(false);
  });

  it("accept a signature under any secret of a rotation, wherever it stands in the list", async () => {
    expect(await verifyHmacSha256Hex([SECRET, "new"], expected, BODY)).toBe(true);
    expect(await verifyHmacSha256Hex(["new", SECRET], expected, BODY)).toBe(true);
    expect(await verifyHmacSha256Hex(["a", SECRET, "b"], expected, BODY)).toBe(true);
  });

  it("compare two secrets: equal only when every byte is", async () => {
    expect(await sameSecret("token-123", "token-123")).toBe(true);
    expect(await sameSecret("token-123", "token-124")).toBe(false);
    expect(await sameSecret("token-123", "token-12")).toBe(false);
    expect(await sameSecret("", "")).toBe(true);
    expect(await sameSecret("", "x")).toBe(false);
    // Differ only in the last character, and only in the first: a comparison that stops early or skips one misses it.
    expect(await sameSecret("aaaaaaaa", "aaaaaaab")).toBe(false);
    expect(await sameSecret("baaaaaaa", "aaaaaaaa")).toBe(false);
  });
});
